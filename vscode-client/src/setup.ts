// Installing the server into a private virtual environment in the extension's global storage,
// from the wheel shipped in the .vsix when there is one, else from PyPI. Runs only on request.
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { installSteps, venvPython } from './pure/interpreter';

const VENV_FOLDER = 'server-venv';

export function privateVenvDir(context: vscode.ExtensionContext): string {
  return path.join(context.globalStorageUri.fsPath, VENV_FOLDER);
}

/** The private environment's Python, when one has been created. */
export function existingPrivatePython(context: vscode.ExtensionContext): string | undefined {
  const python = venvPython(privateVenvDir(context), process.platform);
  return fs.existsSync(python) ? python : undefined;
}

function packagedWheels(context: vscode.ExtensionContext): string[] {
  const folder = context.asAbsolutePath(path.join('vscode-client', 'dist', 'wheels'));
  try {
    return fs.readdirSync(folder).filter((f) => f.endsWith('.whl')).map((f) => path.join(folder, f));
  } catch {
    return [];
  }
}

function run(command: string, args: string[], log: vscode.LogOutputChannel, token: vscode.CancellationToken): Promise<void> {
  return new Promise((resolve, reject) => {
    log.info(`> ${command} ${args.join(' ')}`);
    const child = spawn(command, args, { windowsHide: true });
    const cancel = token.onCancellationRequested(() => child.kill());
    const forward = (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split(/\r?\n/)) if (line.trim()) log.info(line);
    };
    child.stdout.on('data', forward);
    child.stderr.on('data', forward);
    child.on('error', (err) => {
      cancel.dispose();
      reject(new Error(`cannot run ${command}: ${err.message}`));
    });
    child.on('close', (code) => {
      cancel.dispose();
      if (token.isCancellationRequested) reject(new Error('cancelled'));
      else if (code === 0) resolve();
      else reject(new Error(`${path.basename(command)} exited with code ${code} (details in the WhyLens logs)`));
    });
  });
}

/**
 * Create `<globalStorage>/server-venv` with `basePython` and pip-install the server into it.
 * Returns the new interpreter command, or undefined when it failed or was cancelled (already shown).
 */
export async function installServer(
  context: vscode.ExtensionContext,
  basePython: string[],
  log: vscode.LogOutputChannel,
): Promise<string[] | undefined> {
  const venvDir = privateVenvDir(context);
  await fs.promises.mkdir(path.dirname(venvDir), { recursive: true });
  const steps = installSteps(basePython, venvDir, process.platform, packagedWheels(context));
  try {
    await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'WhyLens', cancellable: true },
      async (progress, token) => {
        for (const [i, step] of steps.entries()) {
          progress.report({ message: `${step.title}…`, increment: i === 0 ? 10 : 30 });
          await run(step.command, step.args, log, token);
        }
      },
    );
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    log.error(`installing the server failed: ${message}`);
    if (message !== 'cancelled') {
      const choice = await vscode.window.showErrorMessage(
        `WhyLens: installing the server failed: ${message}. Install it yourself ("pip install whylens") ` +
          'and set "whylens.server.interpreter" to that Python.',
        'Show Logs',
      );
      if (choice) log.show(true);
    }
    return undefined;
  }
  log.info(`server installed in ${venvDir}`);
  return [venvPython(venvDir, process.platform)];
}
