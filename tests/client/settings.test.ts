import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import {
  SERVER_KEYS, indexDirectory, initializationOptions, normalizeInterpreter,
  effectiveTrace, readClientSettings, sameCommand, serverSettings, substituteVariables,
} from '../../vscode-client/src/pure/settings';

const manifest = JSON.parse(fs.readFileSync(path.join(process.cwd(), 'package.json'), 'utf8'));
const properties: Record<string, { default: unknown }> = Object.assign(
  {}, ...manifest.contributes.configuration.map((group: { properties: object }) => group.properties),
);

/** A ConfigGetter over a flat map of `whylens.`-less keys, like WorkspaceConfiguration. */
function getter(values: Record<string, unknown>) {
  return { get: <T>(key: string) => values[key] as T | undefined };
}

const defaults = getter(Object.fromEntries(Object.entries(properties).map(([k, v]) => [k.replace(/^whylens\./, ''), v.default])));

test('every package.json setting is sent to the server', () => {
  const declared = Object.keys(properties).map((k) => k.replace(/^whylens\./, '')).sort();
  assert.deepEqual([...SERVER_KEYS].sort(), declared);
});

test('client defaults in code equal the package.json defaults', () => {
  const fallback = readClientSettings(getter({}));
  const fromManifest = readClientSettings(defaults);
  assert.deepEqual(fallback, fromManifest);
  assert.equal(fromManifest.searchDebounceMs, properties['whylens.search.debounceMs'].default);
  assert.equal(fromManifest.searchMaxResults, properties['whylens.search.maxResults'].default);
});

test('the interpreter accepts a list or a plain string and drops blanks', () => {
  assert.deepEqual(normalizeInterpreter(['/usr/bin/python3', ' ', '-X', 'utf8']), ['/usr/bin/python3', '-X', 'utf8']);
  assert.deepEqual(normalizeInterpreter('/opt/py/bin/python'), ['/opt/py/bin/python']);
  assert.deepEqual(normalizeInterpreter(undefined), []);
  assert.deepEqual(normalizeInterpreter([3, null, 'python']), ['python']);
  assert.deepEqual(
    normalizeInterpreter(['${workspaceFolder}/.venv/bin/python'], { workspaceFolder: '/ws' }),
    ['/ws/.venv/bin/python'],
  );
});

test('variables expand; unknown ones stay', () => {
  const ctx = { workspaceFolder: '/ws', userHome: '/home/u' };
  assert.equal(substituteVariables('~/venv/bin/python', ctx), '/home/u/venv/bin/python');
  assert.equal(substituteVariables('${userHome}/x', ctx), '/home/u/x');
  assert.equal(substituteVariables('~user/x', ctx), '~user/x');
  assert.equal(substituteVariables('${env:HOME}/x', ctx), '${env:HOME}/x');
});

test('numbers are clamped to their declared range', () => {
  const s = readClientSettings(getter({ 'search.debounceMs': -5, 'search.maxResults': 1e6 }));
  assert.equal(s.searchDebounceMs, 0);
  assert.equal(s.searchMaxResults, 100);
  assert.equal(readClientSettings(getter({ 'search.debounceMs': 'fast' })).searchDebounceMs, 150);
});

test('server settings are nested camelCase groups with every server key', () => {
  const nested = serverSettings(defaults);
  assert.deepEqual(nested.hover, { enabled: true });
  assert.deepEqual(nested.codeLens, { enabled: true });
  assert.deepEqual(nested.pitfalls, { enabled: true, maxPerFile: 3 });
  assert.deepEqual(nested.server, { interpreter: [] });
  assert.deepEqual(nested.search, { debounceMs: 150, maxResults: 20 });
  const count = Object.values(nested).reduce((n, group) => n + Object.keys(group).length, 0);
  assert.equal(count, SERVER_KEYS.length);
});

test('the index lives in workspace storage unless the setting says otherwise', () => {
  assert.equal(indexDirectory('', '/storage/abc/'), '/storage/abc/index');
  assert.equal(indexDirectory('/my/index', '/storage/abc'), '/my/index');
  assert.equal(indexDirectory('', undefined), null);
  const options = initializationOptions(getter({ 'index.directory': '${workspaceFolder}/../idx' }), '/s', { workspaceFolder: '/ws' });
  assert.equal(options.indexDirectory, '/ws/../idx');
  assert.deepEqual(options.settings.index, { directory: '${workspaceFolder}/../idx' });
});

test('the LSP trace is the setting, raised by the output channel log level', () => {
  assert.equal(effectiveTrace('off', 3), 'off');
  assert.equal(effectiveTrace('off', 2), 'messages');
  assert.equal(effectiveTrace('off', 1), 'verbose');
  assert.equal(effectiveTrace('verbose', 3), 'verbose');
  assert.equal(effectiveTrace('messages', 1), 'verbose');
  assert.equal(effectiveTrace('verbose', 2), 'verbose');
  assert.equal(effectiveTrace('loud', 4), 'off');
});

test('sameCommand compares argv element by element', () => {
  assert.ok(sameCommand(['python3'], ['python3']));
  assert.ok(!sameCommand(['python3'], ['python3', '-X']));
  assert.ok(!sameCommand(undefined, ['python3']));
  assert.ok(sameCommand(undefined, undefined));
});

test('an untrusted workspace cannot choose the interpreter or the index folder', () => {
  // what VS Code's WorkspaceConfiguration answers when .vscode/settings.json sets both
  const workspace: Record<string, unknown> = { 'server.interpreter': ['./evil/python'], 'index.directory': '/tmp/shared' };
  const user: Record<string, unknown> = { 'server.interpreter': ['/usr/bin/python3'] };
  const cfg = {
    get: <T>(key: string) => (workspace[key] ?? user[key]) as T | undefined,
    inspect: <T>(key: string) => ({ defaultValue: (properties[`whylens.${key}`]?.default) as T, globalValue: user[key] as T }),
  };
  const untrusted = readClientSettings(cfg, {}, false);
  assert.deepEqual(untrusted.interpreter, ['/usr/bin/python3']);
  assert.equal(untrusted.indexDirectory, '');
  const options = initializationOptions(cfg, '/storage', {}, false);
  assert.equal(options.indexDirectory, '/storage/index');
  assert.deepEqual(options.settings.server.interpreter, ['/usr/bin/python3']);
  assert.equal(options.settings.index.directory, '');
  assert.deepEqual(readClientSettings(cfg, {}, true).interpreter, ['./evil/python']); // trusted: as configured
});
