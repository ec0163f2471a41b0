// Which Python runs the server, how to start it, how to check it, and how to install the server
// into a private virtual environment. Pure: command lines and parsing only; running them is the
// job of ../python.ts and ../setup.ts.

import * as path from 'path';

export type InterpreterSource = 'setting' | 'python-extension' | 'private-venv' | 'default';

export interface Candidate {
  command: string[]; // executable first, then extra arguments
  source: InterpreterSource;
}

export const DEFAULT_PYTHON = 'python3';
export const MIN_PYTHON: [number, number] = [3, 11];
export const PYPI_NAME = 'whylens';

/** True when `file` is `folder` or inside it (absolute paths; `..` segments resolved). */
export function isInside(file: string, folder: string): boolean {
  const rel = path.relative(path.resolve(folder), path.resolve(file));
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * Candidates in the order they are tried. An explicit setting comes first and replaces the
 * automatic choices (the Python extension's interpreter, then `python3`); the private environment
 * exists only when the user asked for it, so it is the fallback either way.
 *
 * `restricted` (an untrusted workspace: its folders): the Python extension's choice is skipped
 * (a workspace may select its own `.venv`), and so is any interpreter inside those folders.
 */
export function interpreterCandidates(
  setting: string[],
  pythonExtension: string[] | undefined,
  privateVenvPython: string | undefined,
  restricted?: string[],
): Candidate[] {
  const all = candidatesInOrder(setting, restricted ? undefined : pythonExtension, privateVenvPython);
  if (!restricted) return all;
  return all.filter((c) => !(path.isAbsolute(c.command[0]) && restricted.some((root) => isInside(c.command[0], root))));
}

function candidatesInOrder(
  setting: string[],
  pythonExtension: string[] | undefined,
  privateVenvPython: string | undefined,
): Candidate[] {
  const out: Candidate[] = [];
  if (setting.length > 0) {
    out.push({ command: setting, source: 'setting' });
    if (privateVenvPython) out.push({ command: [privateVenvPython], source: 'private-venv' });
    return dedupe(out);
  }
  if (pythonExtension && pythonExtension.length > 0) {
    out.push({ command: pythonExtension, source: 'python-extension' });
  }
  if (privateVenvPython) out.push({ command: [privateVenvPython], source: 'private-venv' });
  out.push({ command: [DEFAULT_PYTHON], source: 'default' });
  return dedupe(out);
}

function dedupe(candidates: Candidate[]): Candidate[] {
  const seen = new Set<string>();
  return candidates.filter((c) => {
    const key = JSON.stringify(c.command);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * `python -P -m whylens serve` (stdio). `-P` (Python 3.11+, checked by the probe first): the
 * current folder is not put on the import path, so no `whylens` package of a repository shadows
 * the installed one.
 */
export function serverCommand(interpreter: string[]): { command: string; args: string[] } {
  const [command, ...rest] = interpreter;
  return { command, args: [...rest, '-P', '-m', 'whylens', 'serve'] };
}

/** A one-line probe: prints JSON with the Python version and whylens's version or import error. */
export const PROBE_SCRIPT = [
  'import json, sys',
  'r = {"python": "%d.%d.%d" % sys.version_info[:3], "executable": sys.executable}',
  'try:',
  '    import whylens',
  '    r["whylens"] = getattr(whylens, "__version__", "unknown")',
  'except Exception as e:',
  '    r["error"] = "%s: %s" % (type(e).__name__, e)',
  'print(json.dumps(r))',
].join('\n');

export function probeCommand(interpreter: string[]): { command: string; args: string[] } {
  const [command, ...rest] = interpreter;
  return { command, args: [...rest, '-c', PROBE_SCRIPT] };
}

export interface ProbeResult {
  ok: boolean; // whylens importable on a new-enough Python
  python?: string;
  executable?: string;
  whylens?: string;
  problem?: string; // one readable sentence when not ok
  pythonTooOld?: boolean;
}

function versionAtLeast(version: string, min: [number, number]): boolean {
  const [major, minor] = version.split('.').map((part) => Number.parseInt(part, 10));
  if (!Number.isFinite(major) || !Number.isFinite(minor)) return false;
  return major > min[0] || (major === min[0] && minor >= min[1]);
}

/** Interpret the probe's outcome (exit code, stdout, spawn error) as one readable result. */
export function parseProbe(
  interpreter: string[],
  outcome: { code: number | null; stdout: string; stderr: string; spawnError?: string },
): ProbeResult {
  const shown = interpreter.join(' ');
  if (outcome.spawnError) {
    return { ok: false, problem: `cannot run "${shown}": ${outcome.spawnError}` };
  }
  const line = outcome.stdout.trim().split(/\r?\n/).pop() ?? '';
  let data: Record<string, unknown>;
  try {
    data = JSON.parse(line);
  } catch {
    const why = (outcome.stderr.trim().split(/\r?\n/).pop() ?? '') || `exit code ${outcome.code}`;
    return { ok: false, problem: `"${shown}" is not a working Python (${why})` };
  }
  const python = typeof data.python === 'string' ? data.python : undefined;
  const executable = typeof data.executable === 'string' ? data.executable : undefined;
  const min = MIN_PYTHON.join('.');
  if (!python || !versionAtLeast(python, MIN_PYTHON)) {
    return {
      ok: false, python, executable, pythonTooOld: true,
      problem: `"${shown}" is Python ${python ?? '?'}; WhyLens needs Python ${min} or newer`,
    };
  }
  if (typeof data.whylens !== 'string') {
    const error = typeof data.error === 'string' ? data.error : 'not importable';
    return {
      ok: false, python, executable,
      problem: `the WhyLens server is not installed for "${shown}" (Python ${python}: ${error})`,
    };
  }
  return { ok: true, python, executable, whylens: data.whylens };
}

/** Where the private environment's Python lives. */
export function venvPython(venvDir: string, platform: string): string {
  return platform === 'win32' ? `${venvDir}\\Scripts\\python.exe` : `${venvDir}/bin/python`;
}

/** The steps that create the private environment and install the server into it. */
export function installSteps(
  basePython: string[],
  venvDir: string,
  platform: string,
  wheels: string[],
): { title: string; command: string; args: string[] }[] {
  const [command, ...rest] = basePython;
  const python = venvPython(venvDir, platform);
  // Prefer the wheel shipped in the .vsix (newest name last); its dependencies come from PyPI.
  const wheel = [...wheels].filter((w) => w.endsWith('.whl')).sort().pop();
  return [
    { title: 'Creating a private Python environment', command, args: [...rest, '-m', 'venv', venvDir] },
    {
      title: 'Installing the WhyLens server',
      command: python,
      args: ['-m', 'pip', 'install', '--disable-pip-version-check', '--upgrade', wheel ?? PYPI_NAME],
    },
  ];
}
