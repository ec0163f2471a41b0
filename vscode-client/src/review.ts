// WhyLens: Suggest Review Comments — pick a base branch, ask `whylens/prSuggestions`, and show
// each suggestion as a comment thread on its line, with "Copy as GitHub review comment" and
// "Dismiss" actions.
import { execFile } from 'child_process';
import * as path from 'path';
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { targetFolder } from './folders';
import { PrSuggestionsParams, PrSuggestionsResult, Requests, Suggestion } from './protocol';
import { baseChoices, githubCommentText, reviewSummary, suggestionsOf, threadAuthor, threadLabel, threadLine } from './pure/reviewItems';

export const REVIEW_CONTROLLER_ID = 'whylens.review';
const WORKING_TREE = 'working tree (uncommitted changes included)';

function git(cwd: string, args: string[]): Promise<string> {
  return new Promise((resolve) => {
    execFile('git', args, { cwd, timeout: 10_000, windowsHide: true }, (error, stdout) => resolve(error ? '' : String(stdout)));
  });
}

export class ReviewThreads implements vscode.Disposable {
  private readonly controller: vscode.CommentController;
  private readonly threads = new Map<vscode.CommentThread, Suggestion>();

  constructor(private readonly log: vscode.LogOutputChannel) {
    this.controller = vscode.comments.createCommentController(REVIEW_CONTROLLER_ID, 'WhyLens review');
    this.controller.options = { prompt: 'WhyLens suggestions are read-only', placeHolder: '' };
  }

  async suggest(client: LanguageClient): Promise<void> {
    if (!vscode.workspace.workspaceFolders?.length) {
      void vscode.window.showWarningMessage('WhyLens: open a folder inside a git repository to review its changes.');
      return;
    }
    const folder = await targetFolder('review');
    if (!folder) return; // the user dismissed the picker
    const root = (await git(folder.uri.fsPath, ['rev-parse', '--show-toplevel'])).trim() || folder.uri.fsPath;
    const current = (await git(root, ['rev-parse', '--abbrev-ref', 'HEAD'])).trim();
    const refs = await git(root, ['for-each-ref', '--format=%(refname:short)', 'refs/heads', 'refs/remotes']);
    const choices = baseChoices(refs, current);
    const base = await vscode.window.showQuickPick(
      choices.map((ref) => ({ label: ref, description: ref === choices[0] ? 'likely base' : undefined })),
      { title: 'WhyLens: Suggest Review Comments', placeHolder: `Compare ${current || 'HEAD'} (${WORKING_TREE}) against…` },
    );
    if (!base) return;
    // head absent: the working tree, so uncommitted work is reviewed too
    const params: PrSuggestionsParams = { base: base.label, uri: folder.uri.toString() };
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `WhyLens: reviewing the changes against ${base.label}…` },
      () => client.sendRequest<PrSuggestionsResult | null>(Requests.prSuggestions, params),
    );
    if (result === null) {
      const choice = await vscode.window.showWarningMessage(
        `WhyLens: the review against ${base.label} could not run (is the index ready?). The logs say why.`, 'Show Logs');
      if (choice) this.log.show(true);
      return;
    }
    const suggestions = suggestionsOf(result);
    this.clear();
    for (const suggestion of suggestions) await this.add(root, suggestion);
    this.log.info(reviewSummary(suggestions.length, base.label));
    void vscode.window.showInformationMessage(reviewSummary(suggestions.length, base.label));
    const first = [...this.threads.keys()][0];
    if (first) await vscode.window.showTextDocument(first.uri, { selection: first.range, preview: false });
  }

  private async add(root: string, suggestion: Suggestion): Promise<void> {
    const uri = vscode.Uri.file(path.join(root, ...suggestion.path.split('/')));
    let lineCount = suggestion.line;
    try {
      lineCount = (await vscode.workspace.openTextDocument(uri)).lineCount;
    } catch {
      // a deleted file (LEFT side): keep the server's line
    }
    const line = threadLine(suggestion, lineCount);
    // the body quotes the history (escaped by the server): untrusted, no HTML, no theme icons
    const body = new vscode.MarkdownString(suggestion.body);
    body.isTrusted = false;
    body.supportHtml = false;
    body.supportThemeIcons = false;
    const comment: vscode.Comment = {
      body,
      mode: vscode.CommentMode.Preview,
      author: { name: threadAuthor(suggestion) },
      contextValue: 'whylens-suggestion',
    };
    const thread = this.controller.createCommentThread(uri, new vscode.Range(line, 0, line, 0), [comment]);
    thread.canReply = false;
    thread.label = threadLabel(suggestion);
    thread.contextValue = 'whylens-suggestion';
    thread.collapsibleState = vscode.CommentThreadCollapsibleState.Expanded;
    this.threads.set(thread, suggestion);
  }

  async copyAsGithub(thread: vscode.CommentThread | undefined): Promise<void> {
    const suggestion = thread && this.threads.get(thread);
    if (!suggestion) return;
    await vscode.env.clipboard.writeText(githubCommentText(suggestion));
    void vscode.window.setStatusBarMessage('WhyLens: review comment copied as GitHub JSON', 3000);
  }

  dismiss(thread: vscode.CommentThread | undefined): void {
    if (!thread || !this.threads.has(thread)) return;
    this.threads.delete(thread);
    thread.dispose();
  }

  /** How many threads are shown (for tests and the log). */
  get count(): number {
    return this.threads.size;
  }

  private clear(): void {
    for (const thread of this.threads.keys()) thread.dispose();
    this.threads.clear();
  }

  dispose(): void {
    this.clear();
    this.controller.dispose();
  }
}
