// The read-only rationale view: markdown served by a content provider under the `whylens`
// scheme and opened in VS Code's markdown preview (links open in the browser).
import * as vscode from 'vscode';
import { documentName } from './pure/rationaleText';

export const RATIONALE_SCHEME = 'whylens';

export class RationaleView implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly documents = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly registration: vscode.Disposable;

  constructor() {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(RATIONALE_SCHEME, this);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.documents.get(uri.toString()) ?? '*This rationale is no longer available; run the command again.*\n';
  }

  /** Show `markdown` as a rendered, read-only document titled `title`. */
  async show(title: string, markdown: string): Promise<vscode.Uri> {
    const uri = vscode.Uri.from({ scheme: RATIONALE_SCHEME, path: `/${documentName(title)}` });
    this.documents.set(uri.toString(), markdown);
    this.changed.fire(uri);
    try {
      await vscode.commands.executeCommand('markdown.showPreviewToSide', uri);
    } catch {
      // no markdown extension: the source is still readable (and read-only)
      const document = await vscode.workspace.openTextDocument(uri);
      await vscode.languages.setTextDocumentLanguage(document, 'markdown');
      await vscode.window.showTextDocument(document, { preview: true });
    }
    return uri;
  }

  dispose(): void {
    this.registration.dispose();
    this.changed.dispose();
  }
}
