// Wiring only: create the pieces, connect them, and hand every disposable to VS Code.
import * as vscode from 'vscode';
import { registerCommands } from './commands';
import { ErrorForwarder } from './diagnostics';
import { onPythonInterpreterChanged } from './python';
import { RationaleView } from './rationale';
import { ReviewThreads } from './review';
import { ServerManager } from './server';
import { StatusItem } from './status';

let manager: ServerManager | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const log = vscode.window.createOutputChannel('WhyLens', { log: true });
  const status = new StatusItem();
  manager = new ServerManager(context, log, status);
  const serverManager = manager;
  const rationale = new RationaleView();
  const review = new ReviewThreads(log);
  const errors = new ErrorForwarder(() => serverManager.running, log);

  context.subscriptions.push(
    log, status, rationale, review, errors,
    serverManager.onDidStart(() => errors.resendAll()),
    ...registerCommands({ manager: serverManager, rationale, review, log }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('whylens.server.interpreter')) void serverManager.interpreterMaybeChanged();
    }),
    // trusted now: the Python extension's interpreter may be used (see server.ts)
    vscode.workspace.onDidGrantWorkspaceTrust(() => void serverManager.interpreterMaybeChanged()),
  );
  const pythonWatch = await onPythonInterpreterChanged(() => void serverManager.interpreterMaybeChanged());
  if (pythonWatch) context.subscriptions.push(pythonWatch);

  void serverManager.restart(); // not awaited: activation must not wait for Python
}

export async function deactivate(): Promise<void> {
  await manager?.dispose();
  manager = undefined;
}
