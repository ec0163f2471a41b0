// The client's commands. Server commands (`whylens.server.*`) are only ever called through
// `workspace/executeCommand`; failures become one readable message with a way to the logs.
import * as path from 'path';
import * as vscode from 'vscode';
import { ExecuteCommandRequest, LanguageClient } from 'vscode-languageclient/node';
import { targetFolder } from './folders';
import { ClientCommands, ExplainErrorParams, ExplainErrorResult, ExplainSymbolArgs, Requests, ServerCommands } from './protocol';
import { errorText, isLensRationaleArgs, markdownOf, titleOf } from './pure/rationaleText';
import { findSymbolLine } from './pure/symbolLine';
import { RationaleView } from './rationale';
import { ReviewThreads } from './review';
import { searchKnowledge } from './search';
import { ServerManager } from './server';

const ISSUES = 'https://github.com/whylens/whylens/issues';

export interface CommandDeps {
  manager: ServerManager;
  rationale: RationaleView;
  review: ReviewThreads;
  log: vscode.LogOutputChannel;
}

function folderFile(folder: vscode.WorkspaceFolder, relative: string): vscode.Uri {
  return vscode.Uri.file(path.join(folder.uri.fsPath, ...relative.split('/')));
}

export function registerCommands(deps: CommandDeps): vscode.Disposable[] {
  const { manager, rationale, review, log } = deps;

  /** The running client, or undefined after telling the user why not. */
  const client = (): LanguageClient | undefined => {
    const running = manager.running;
    if (!running) {
      void vscode.window.showWarningMessage('WhyLens: the server is not running.', 'Restart Server', 'Show Logs').then((choice) => {
        if (choice === 'Restart Server') void manager.restart();
        if (choice === 'Show Logs') log.show(true);
      });
    }
    return running;
  };

  /** Run `task`; a failure is logged and shown once, with the logs and the issue tracker at hand. */
  const guarded = <A extends unknown[]>(name: string, task: (...args: A) => Promise<unknown>) =>
    async (...args: A) => {
      try {
        await task(...args);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        log.error(`${name}: ${message}`);
        const choice = await vscode.window.showErrorMessage(`WhyLens: ${name} failed: ${message}`, 'Show Logs', 'Report Issue');
        if (choice === 'Show Logs') log.show(true);
        if (choice === 'Report Issue') await vscode.env.openExternal(vscode.Uri.parse(ISSUES));
      }
    };

  const explain = async (c: LanguageClient, args: unknown[], fallbackTitle: string) => {
    const result = await c.sendRequest(ExecuteCommandRequest.type, { command: ServerCommands.explainSymbol, arguments: args });
    const markdown = markdownOf(result);
    if (!markdown) {
      void vscode.window.showInformationMessage(`WhyLens: nothing is known about ${fallbackTitle} yet.`);
      return;
    }
    await rationale.show(titleOf(markdown, fallbackTitle), markdown);
  };

  const showRationale = async (arg?: unknown) => {
    const c = client();
    if (!c) return;
    if (isLensRationaleArgs(arg)) return explain(c, arg.serverArguments, 'this symbol');
    const editor = vscode.window.activeTextEditor;
    if (!editor || editor.document.uri.scheme !== 'file') {
      void vscode.window.showInformationMessage('WhyLens: put the cursor on a symbol in a file to see its rationale.');
      return;
    }
    const position = editor.selection.active;
    const args: ExplainSymbolArgs = {
      uri: editor.document.uri.toString(),
      position: { line: position.line, character: position.character },
    };
    const word = editor.document.getText(editor.document.getWordRangeAtPosition(position)) || 'this line';
    return explain(c, [args], word);
  };

  const goToSymbol = async (folder: vscode.WorkspaceFolder, relPath: string, symbol: string | undefined): Promise<vscode.Uri> => {
    const uri = folderFile(folder, relPath);
    const document = await vscode.workspace.openTextDocument(uri);
    const line = findSymbolLine(document.getText(), symbol);
    const range = new vscode.Range(line, 0, line, 0);
    await vscode.window.showTextDocument(document, { selection: range });
    return uri;
  };

  /** Jump to the symbol (the server explains open documents only), then show its story beside it. */
  const showSymbolRationale = async (folder: vscode.WorkspaceFolder, relPath: string, symbol: string) => {
    const c = client();
    if (!c) return;
    const uri = await goToSymbol(folder, relPath, symbol);
    const args: ExplainSymbolArgs = { uri: uri.toString(), symbol };
    await explain(c, [args], symbol);
  };

  const explainError = async () => {
    const c = client();
    if (!c) return;
    const editor = vscode.window.activeTextEditor;
    const selection = editor && !editor.selection.isEmpty ? editor.document.getText(editor.selection) : undefined;
    const text = errorText(selection, selection ? undefined : await vscode.env.clipboard.readText());
    if (!text) {
      void vscode.window.showInformationMessage('WhyLens: select an error or stack trace (or copy it) first.');
      return;
    }
    const folder = await targetFolder('explain the error in');
    if (!folder && vscode.workspace.workspaceFolders?.length) return; // the user dismissed the picker
    const params: ExplainErrorParams = { text, uri: folder?.uri.toString() };
    const result = await c.sendRequest<ExplainErrorResult | null>(Requests.explainError, params);
    if (result === null) {
      void vscode.window.showWarningMessage('WhyLens: the index is not ready yet; try again when indexing ends.');
      return;
    }
    const markdown = result.count > 0 ? markdownOf(result) : null;
    if (!markdown) {
      void vscode.window.showInformationMessage('WhyLens: no known pitfall matches this error.');
      return;
    }
    await rationale.show(titleOf(markdown, 'Known pitfalls'), markdown);
  };

  const reindex = async () => {
    const c = client();
    if (!c) return;
    const folder = await targetFolder('reindex');
    if (!folder) return;
    await c.sendRequest(ExecuteCommandRequest.type, { command: ServerCommands.reindex, arguments: [folder.uri.toString()] });
  };

  return [
    vscode.commands.registerCommand(ClientCommands.search, guarded('search', async () => {
      const c = client();
      const folder = c && (await targetFolder('search'));
      if (c && folder) {
        await searchKnowledge(c, folder, {
          showSymbolRationale: guarded('show rationale', (p: string, s: string) => showSymbolRationale(folder, p, s)),
          showMarkdown: async (title, markdown) => void (await rationale.show(title, markdown)),
          goToSymbol: guarded('go to symbol', async (p: string, s: string | undefined) => void (await goToSymbol(folder, p, s))),
        }, log);
      }
    })),
    vscode.commands.registerCommand(ClientCommands.showRationale, guarded('show rationale', showRationale)),
    vscode.commands.registerCommand(ClientCommands.explainError, guarded('explain error', explainError)),
    vscode.commands.registerCommand(ClientCommands.suggestReview, guarded('suggest review comments', async () => {
      const c = client();
      if (c) await review.suggest(c);
    })),
    vscode.commands.registerCommand(ClientCommands.copyReviewComment, guarded('copy review comment', (t?: vscode.CommentThread) => review.copyAsGithub(t))),
    vscode.commands.registerCommand(ClientCommands.dismissReviewComment, (t?: vscode.CommentThread) => review.dismiss(t)),
    vscode.commands.registerCommand(ClientCommands.reindex, guarded('reindex', reindex)),
    // preserveFocus: the logs are to be read; the focus stays where the user works
    vscode.commands.registerCommand(ClientCommands.showLogs, () => log.show(true)),
    vscode.commands.registerCommand(ClientCommands.restartServer, guarded('restart', () => manager.restart())),
    vscode.commands.registerCommand(ClientCommands.installServer, guarded('install the server', () => manager.install())),
  ];
}
