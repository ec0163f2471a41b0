// Finding the Python that runs the server: the Python extension's active interpreter (when that
// extension is installed) and a probe that checks `whylens` is importable.
import { execFile } from 'child_process';
import * as vscode from 'vscode';
import { ProbeResult, parseProbe, probeCommand } from './pure/interpreter';

const PYTHON_EXTENSION = 'ms-python.python';

interface PythonEnvironmentsApi {
  getActiveEnvironmentPath(resource?: vscode.Uri): { path: string } | undefined;
  resolveEnvironment(env: { path: string } | string): Promise<{ executable?: { uri?: vscode.Uri } } | undefined>;
  onDidChangeActiveEnvironmentPath?: vscode.Event<unknown>;
}

interface PythonExtensionApi {
  environments?: PythonEnvironmentsApi;
  settings?: { getExecutionDetails?(resource?: vscode.Uri): { execCommand?: string[] } };
}

async function pythonApi(): Promise<PythonExtensionApi | undefined> {
  const extension = vscode.extensions.getExtension<PythonExtensionApi>(PYTHON_EXTENSION);
  if (!extension) return undefined;
  try {
    return extension.isActive ? extension.exports : await extension.activate();
  } catch {
    return undefined;
  }
}

/** The Python extension's interpreter for `resource`, or undefined (not installed / none chosen). */
export async function pythonExtensionInterpreter(resource?: vscode.Uri): Promise<string[] | undefined> {
  const api = await pythonApi();
  try {
    const envs = api?.environments;
    const active = envs?.getActiveEnvironmentPath(resource);
    if (envs && active) {
      const env = await envs.resolveEnvironment(active);
      const executable = env?.executable?.uri?.fsPath;
      if (executable) return [executable];
    }
    const legacy = api?.settings?.getExecutionDetails?.(resource)?.execCommand;
    if (legacy && legacy.length) return legacy;
  } catch {
    // the extension is there but not ready: fall through to the next candidate
  }
  return undefined;
}

/** Fires when the user picks another interpreter in the Python extension. */
export async function onPythonInterpreterChanged(listener: () => void): Promise<vscode.Disposable | undefined> {
  const event = (await pythonApi())?.environments?.onDidChangeActiveEnvironmentPath;
  return event ? event(() => listener()) : undefined;
}

/** Run the probe script with `interpreter`; never throws. */
export function probeInterpreter(interpreter: string[], cwd?: string): Promise<ProbeResult> {
  const { command, args } = probeCommand(interpreter);
  return new Promise((resolve) => {
    execFile(command, args, { cwd, timeout: 30_000, windowsHide: true }, (error, stdout, stderr) => {
      const spawnError = error && (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'command not found' : undefined;
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve(parseProbe(interpreter, { code, stdout: String(stdout), stderr: String(stderr), spawnError }));
    });
  });
}
