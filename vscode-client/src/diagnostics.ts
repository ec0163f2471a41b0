// Forwarding other tools' Error diagnostics of visible documents to the server
// (`whylens/errorsChanged`), debounced per document, so it can add known-pitfall hints.
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { Notifications } from './protocol';
import { SentErrors, errorsPayload } from './pure/errors';
import { KeyedDebouncer } from './pure/timing';

const DEBOUNCE_MS = 400;

export class ErrorForwarder implements vscode.Disposable {
  private readonly sent = new SentErrors();
  private readonly debouncer = new KeyedDebouncer<string>(DEBOUNCE_MS, (uri) => this.send(uri));
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(private readonly client: () => LanguageClient | undefined, private readonly log: vscode.LogOutputChannel) {
    this.subscriptions.push(
      vscode.languages.onDidChangeDiagnostics((e) => {
        const visible = this.visibleUris();
        for (const uri of e.uris) if (visible.has(uri.toString())) this.debouncer.trigger(uri.toString());
      }),
      vscode.window.onDidChangeVisibleTextEditors(() => this.resendVisible()),
      // closing a document clears its hints on the server; reopening must send its errors again
      vscode.workspace.onDidCloseTextDocument((document) => this.sent.forget(document.uri.toString())),
    );
  }

  /**
   * Send the errors of every visible document again: after a (re)start the server knows none.
   * (After an index run the server re-matches the errors it holds; nothing is resent.)
   */
  resendAll(): void {
    this.sent.reset();
    this.resendVisible();
  }

  private resendVisible(): void {
    for (const uri of this.visibleUris()) this.debouncer.trigger(uri);
  }

  private visibleUris(): Set<string> {
    return new Set(
      vscode.window.visibleTextEditors
        .map((editor) => editor.document.uri)
        .filter((uri) => uri.scheme === 'file')
        .map((uri) => uri.toString()),
    );
  }

  private send(uri: string): void {
    const client = this.client();
    if (!client) return;
    const diagnostics = vscode.languages.getDiagnostics(vscode.Uri.parse(uri));
    const payload = this.sent.next(errorsPayload(uri, diagnostics));
    if (!payload) return;
    client.sendNotification(Notifications.errorsChanged, payload).catch((err: unknown) => {
      this.log.warn(`forwarding errors of ${uri}: ${err instanceof Error ? err.message : String(err)}`);
    });
  }

  dispose(): void {
    this.debouncer.dispose();
    for (const s of this.subscriptions) s.dispose();
  }
}
