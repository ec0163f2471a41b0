// The workspace folder a command (search, reindex, explain error, review) works on.
import * as vscode from 'vscode';
import { chooseFolder } from './pure/folders';

/**
 * The active document's folder, else the only folder, else the one the user picks; undefined
 * when there is no folder or the user dismissed the picker.
 */
export async function targetFolder(purpose: string): Promise<vscode.WorkspaceFolder | undefined> {
  const document = vscode.window.activeTextEditor?.document;
  const active = document ? vscode.workspace.getWorkspaceFolder(document.uri) : undefined;
  const choice = chooseFolder(active, vscode.workspace.workspaceFolders);
  if (choice.kind === 'use') return choice.folder;
  if (choice.kind === 'none') return undefined;
  return vscode.window.showWorkspaceFolderPick({ placeHolder: `WhyLens: which folder to ${purpose}?` });
}
