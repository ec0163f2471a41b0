// The manifest and the protocol names: what package.json contributes matches what the code uses,
// and the protocol names match the server's lsp/protocol.py.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ClientCommands, Notifications, Requests, ServerCommands } from '../../vscode-client/src/protocol';

const root = process.cwd();
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

test('identity, engine and activation', () => {
  assert.equal(manifest.publisher, 'whylens');
  assert.equal(manifest.name, 'whylens');
  assert.match(manifest.engines.vscode, /^\^1\.\d+\.\d+$/);
  assert.deepEqual(manifest.activationEvents.sort(), ['onStartupFinished', 'workspaceContains:.git']);
  assert.equal(manifest.main, './vscode-client/dist/extension.js');
  assert.ok(fs.existsSync(path.join(root, 'LICENSE')), 'vsce needs a LICENSE file');
  assert.ok(manifest.repository?.url);
});

test('every client command is contributed with category WhyLens, and only those', () => {
  const contributed = manifest.contributes.commands.map((c: { command: string }) => c.command).sort();
  assert.deepEqual(contributed, Object.values(ClientCommands).sort());
  for (const c of manifest.contributes.commands) {
    assert.equal(c.category, 'WhyLens', c.command);
    assert.ok(c.title && !c.title.startsWith('WhyLens'), `${c.command}: the category already says WhyLens`);
    assert.ok(!c.command.startsWith('whylens.server.'), 'server commands belong to the server');
  }
});

test('menus name contributed commands; review actions are hidden from the palette', () => {
  const known = new Set(Object.values(ClientCommands) as string[]);
  for (const [menu, items] of Object.entries(manifest.contributes.menus) as [string, { command: string }[]][]) {
    for (const item of items) assert.ok(known.has(item.command), `${menu}: ${item.command}`);
  }
  const hidden = manifest.contributes.menus.commandPalette.filter((m: { when: string }) => m.when === 'false').map((m: { command: string }) => m.command);
  assert.deepEqual(hidden.sort(), [ClientCommands.copyReviewComment, ClientCommands.dismissReviewComment].sort());
  const threadActions = manifest.contributes.menus['comments/commentThread/title'];
  assert.ok(threadActions.every((m: { when: string }) => m.when === 'commentController == whylens.review'));
});

test('settings come in titled groups and every setting explains itself', () => {
  const groups = manifest.contributes.configuration;
  assert.deepEqual(groups.map((g: { title: string }) => g.title), ['Server', 'Index', 'Hover & Lenses', 'Search', 'Logging']);
  for (const group of groups) {
    for (const [key, prop] of Object.entries(group.properties) as [string, Record<string, unknown>][]) {
      assert.match(key, /^whylens\.[a-z][a-zA-Z]*\.[a-z][a-zA-Z]*$/);
      assert.ok(prop.description || prop.markdownDescription, `${key} needs a description`);
      assert.ok('default' in prop, `${key} needs a default`);
    }
  }
  const trace = groups.find((g: { title: string }) => g.title === 'Logging').properties['whylens.trace.server'];
  assert.deepEqual(trace.enum, ['off', 'messages', 'verbose']);
});

test('settings that choose a program or a folder are machine-scoped; Restricted Mode is declared', () => {
  const all: Record<string, { scope?: string }> = Object.assign(
    {}, ...manifest.contributes.configuration.map((g: { properties: object }) => g.properties));
  for (const key of ['whylens.server.interpreter', 'whylens.index.directory']) {
    assert.equal(all[key].scope, 'machine', `${key}: a workspace must not choose it`);
  }
  const untrusted = manifest.capabilities?.untrustedWorkspaces;
  assert.equal(untrusted?.supported, 'limited');
  assert.ok(untrusted.description.length > 40);
  assert.deepEqual(untrusted.restrictedConfigurations.sort(), ['whylens.index.directory', 'whylens.server.interpreter']);
});

test('protocol names follow the conventions', () => {
  for (const name of [...Object.values(Requests), ...Object.values(Notifications)]) assert.match(name, /^whylens\/[a-z][a-zA-Z]+$/);
  for (const name of Object.values(ServerCommands)) assert.match(name, /^whylens\.server\.[a-z][a-zA-Z]+$/);
  for (const name of Object.values(ClientCommands)) assert.match(name, /^whylens\.(?!server\.)[a-z][a-zA-Z.]+$/);
});

test('protocol names are the ones server/whylens/lsp/protocol.py declares', (t) => {
  const file = path.join(root, 'server/whylens/lsp/protocol.py');
  if (!fs.existsSync(file)) {
    t.skip('server/whylens/lsp/protocol.py does not exist yet');
    return;
  }
  const python = fs.readFileSync(file, 'utf8');
  const declared = new Set([...python.matchAll(/["'](whylens(?:\/|\.server\.)[A-Za-z.]+)["']/g)].map((m) => m[1]));
  const ours = [...Object.values(Requests), ...Object.values(Notifications), ...Object.values(ServerCommands)];
  for (const name of ours) assert.ok(declared.has(name), `${name} is not in lsp/protocol.py`);
  for (const name of declared) assert.ok((ours as string[]).includes(name), `${name} from lsp/protocol.py is not mirrored in protocol.ts`);
});

test('pure modules never import vscode (so these tests run without an editor)', () => {
  const dir = path.join(root, 'vscode-client/src');
  const pure = [path.join(dir, 'protocol.ts'), ...fs.readdirSync(path.join(dir, 'pure')).map((f) => path.join(dir, 'pure', f))];
  for (const file of pure) {
    const text = fs.readFileSync(file, 'utf8');
    assert.ok(!/from\s+['"]vscode['"]|require\(['"]vscode['"]\)/.test(text), `${path.relative(root, file)} imports vscode`);
    assert.ok(!/from\s+['"]\.\.\/(?!protocol)/.test(text), `${path.relative(root, file)} imports a non-pure module`);
  }
});
