import assert from 'node:assert/strict';
import { test } from 'node:test';
// @ts-expect-error: a plain .mjs script without type declarations
import { checkEntries } from '../../vscode-client/scripts/vsix-rules.mjs';

const good = [
  '[Content_Types].xml', 'extension.vsixmanifest', 'extension/package.json', 'extension/readme.md',
  'extension/LICENSE.txt', 'extension/vscode-client/dist/extension.js',
];

test('a vsix with only the shipped files passes', () => {
  assert.deepEqual(checkEntries(good), { unexpected: [], missing: [] });
  const withExtras = [...good, 'extension/vscode-client/dist/wheels/whylens-0.1.0-py3-none-any.whl', 'extension/media/icon.png', 'extension/CHANGELOG.md', 'extension/'];
  assert.deepEqual(checkEntries(withExtras), { unexpected: [], missing: [] });
});

test('sources, maps, tests, node_modules and server code are flagged', () => {
  const leaks = [
    'extension/vscode-client/src/extension.ts', 'extension/vscode-client/dist/extension.js.map',
    'extension/tests/client/settings.test.ts', 'extension/node_modules/vscode-languageclient/package.json',
    'extension/server/whylens/__init__.py', 'extension/package-lock.json', 'extension/media/sub/x.png',
  ];
  assert.deepEqual(checkEntries([...good, ...leaks]).unexpected, leaks);
});

test('a vsix without the bundle or licence is flagged', () => {
  const { missing } = checkEntries(good.filter((e) => !e.includes('dist/') && !e.includes('LICENSE')));
  assert.deepEqual(missing, ['the bundle', 'a LICENSE']);
});
