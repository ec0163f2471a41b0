// The language status item: idle / indexing (busy, %) / degraded / error; clicking opens the logs.
import * as vscode from 'vscode';
import type { IndexStatusParams } from './protocol';
import { ClientCommands } from './protocol';
import { ClientState, StatusView, clientStateView, indexStatusView } from './pure/status';

const SEVERITY: Record<StatusView['severity'], vscode.LanguageStatusSeverity> = {
  information: vscode.LanguageStatusSeverity.Information,
  warning: vscode.LanguageStatusSeverity.Warning,
  error: vscode.LanguageStatusSeverity.Error,
};

export class StatusItem implements vscode.Disposable {
  private readonly item: vscode.LanguageStatusItem;

  constructor() {
    this.item = vscode.languages.createLanguageStatusItem('whylens.status', [{ scheme: 'file' }]);
    this.item.name = 'WhyLens';
    this.item.command = { title: 'Show Logs', command: ClientCommands.showLogs };
    this.show(clientStateView('starting'));
  }

  indexStatus(status: IndexStatusParams): void {
    this.show(indexStatusView(status));
  }

  clientState(state: ClientState, why?: string): void {
    this.show(clientStateView(state, why));
  }

  private show(view: StatusView): void {
    this.item.text = view.text;
    this.item.detail = view.detail;
    this.item.busy = view.busy;
    this.item.severity = SEVERITY[view.severity];
  }

  dispose(): void {
    this.item.dispose();
  }
}
