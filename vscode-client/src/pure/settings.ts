// Settings: the `whylens` section read through a tiny getter interface, so this file needs no
// `vscode` and node:test can check it. package.json `contributes.configuration` is the contract;
// server/whylens/config.py mirrors every key (tests/unit/test_package_json_settings.py).

/** What `vscode.WorkspaceConfiguration` offers that we use. */
export interface ConfigGetter {
  get<T>(key: string): T | undefined;
  inspect?<T>(key: string): { defaultValue?: T; globalValue?: T } | undefined;
}

/**
 * Settings that choose a program or a folder to write: `scope: "machine"` in package.json, so
 * VS Code ignores a workspace's value; in an untrusted workspace they are also read from the
 * user's (or remote machine's) settings only, whatever the editor does.
 */
export const MACHINE_KEYS = ['server.interpreter', 'index.directory'] as const;

function machineValue<T>(cfg: ConfigGetter, key: string, trusted: boolean): T | undefined {
  if (trusted || !cfg.inspect) return cfg.get<T>(key);
  const found = cfg.inspect<T>(key);
  return found?.globalValue ?? found?.defaultValue;
}

/** Every key (without the `whylens.` prefix); all are sent as initializationOptions.settings. */
export const SERVER_KEYS = [
  'server.interpreter',
  'index.directory',
  'index.autoUpdate',
  'hover.enabled',
  'codeLens.enabled',
  'pitfalls.enabled',
  'pitfalls.maxPerFile',
  'search.debounceMs',
  'search.maxResults',
  'trace.server',
  'logging.level',
] as const;

export interface ClientSettings {
  interpreter: string[];
  indexDirectory: string;
  searchDebounceMs: number;
  searchMaxResults: number;
}

export interface PathContext {
  workspaceFolder?: string;
  userHome?: string;
}

/** `${workspaceFolder}`, `${userHome}` and a leading `~` expand; anything else is kept as is. */
export function substituteVariables(value: string, ctx: PathContext): string {
  let out = value;
  if (ctx.userHome) {
    out = out.replace(/^~(?=$|[\\/])/, ctx.userHome).replace(/\$\{userHome\}/g, ctx.userHome);
  }
  if (ctx.workspaceFolder) out = out.replace(/\$\{workspaceFolder\}/g, ctx.workspaceFolder);
  return out;
}

/** The interpreter setting is a string[]; a plain string (hand-edited settings) is accepted too. */
export function normalizeInterpreter(value: unknown, ctx: PathContext = {}): string[] {
  const items = typeof value === 'string' ? [value] : Array.isArray(value) ? value : [];
  return items
    .filter((item): item is string => typeof item === 'string')
    .map((item) => substituteVariables(item.trim(), ctx))
    .filter((item) => item.length > 0);
}

function clampInt(value: unknown, fallback: number, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return fallback;
  return Math.min(max, Math.max(min, Math.round(value)));
}

export function readClientSettings(cfg: ConfigGetter, ctx: PathContext = {}, trusted = true): ClientSettings {
  const directory = machineValue<string>(cfg, 'index.directory', trusted);
  return {
    interpreter: normalizeInterpreter(machineValue(cfg, 'server.interpreter', trusted), ctx),
    indexDirectory: typeof directory === 'string' ? substituteVariables(directory.trim(), ctx) : '',
    searchDebounceMs: clampInt(cfg.get('search.debounceMs'), 150, 0, 2000),
    searchMaxResults: clampInt(cfg.get('search.maxResults'), 20, 1, 100),
  };
}

/** The server's keys as the nested camelCase object config.py parses (`{hover: {enabled}}`). */
export function serverSettings(cfg: ConfigGetter, trusted = true): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const key of SERVER_KEYS) {
    const value = (MACHINE_KEYS as readonly string[]).includes(key)
      ? machineValue<unknown>(cfg, key, trusted) : cfg.get<unknown>(key);
    if (value === undefined) continue;
    const [group, name] = key.split('.');
    (out[group] ??= {})[name] = value;
  }
  return out;
}

export interface InitializationOptions {
  indexDirectory: string | null;
  settings: Record<string, Record<string, unknown>>;
}

/**
 * The index folder: the setting when given, else `<workspace storage>/index`, else null (no
 * folder open: the server falls back to its per-user cache folder).
 */
export function indexDirectory(setting: string, storagePath: string | undefined): string | null {
  if (setting) return setting;
  if (storagePath) return `${storagePath.replace(/[\\/]+$/, '')}/index`;
  return null;
}

export function initializationOptions(
  cfg: ConfigGetter,
  storagePath: string | undefined,
  ctx: PathContext = {},
  trusted = true,
): InitializationOptions {
  const client = readClientSettings(cfg, ctx, trusted);
  return {
    indexDirectory: indexDirectory(client.indexDirectory, storagePath),
    settings: serverSettings(cfg, trusted),
  };
}

export type TraceLevel = 'off' | 'messages' | 'verbose';

/** vscode.LogLevel values (Off 0, Trace 1, Debug 2, Info 3, Warning 4, Error 5). */
const LOG_TRACE = 1;
const LOG_DEBUG = 2;

/**
 * The LSP trace: the `whylens.trace.server` setting, raised by the output channel's log level
 * ("Set Log Level…" on the WhyLens channel): Trace → verbose, Debug → messages.
 */
export function effectiveTrace(setting: unknown, logLevel: number): TraceLevel {
  const order: TraceLevel[] = ['off', 'messages', 'verbose'];
  const fromSetting = order.includes(setting as TraceLevel) ? (setting as TraceLevel) : 'off';
  const fromLog: TraceLevel = logLevel === LOG_TRACE ? 'verbose' : logLevel === LOG_DEBUG ? 'messages' : 'off';
  return order.indexOf(fromLog) > order.indexOf(fromSetting) ? fromLog : fromSetting;
}

export function sameCommand(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  if (!a || !b) return a === b;
  return a.length === b.length && a.every((item, i) => item === b[i]);
}
