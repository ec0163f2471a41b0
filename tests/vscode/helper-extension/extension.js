// Test-only: act like a linter/test runner that reports an Error on a known line of a known file.
// The file name, the line (1-based) and the message come from the environment the test gives
// code-server (the extension host inherits it).
const vscode = require('vscode');

const FILE = process.env.WHYLENS_E2E_ERROR_FILE || 'pool.py';
const LINE = Number.parseInt(process.env.WHYLENS_E2E_ERROR_LINE || '1', 10) - 1;
const MESSAGE = process.env.WHYLENS_E2E_ERROR_MESSAGE || 'RuntimeError: something failed';

function activate(context) {
  const collection = vscode.languages.createDiagnosticCollection('e2e-helper');
  const publish = (document) => {
    if (document.uri.scheme !== 'file' || !document.uri.path.endsWith('/' + FILE)) return;
    const line = Math.min(LINE, document.lineCount - 1);
    const text = document.lineAt(line);
    const range = new vscode.Range(line, text.firstNonWhitespaceCharacterIndex, line, text.text.length);
    const diagnostic = new vscode.Diagnostic(range, MESSAGE, vscode.DiagnosticSeverity.Error);
    diagnostic.source = 'e2e-helper';
    diagnostic.code = 'E2E001';
    collection.set(document.uri, [diagnostic]);
  };
  context.subscriptions.push(collection, vscode.workspace.onDidOpenTextDocument(publish));
  vscode.workspace.textDocuments.forEach(publish);
}

module.exports = { activate, deactivate() {} };
