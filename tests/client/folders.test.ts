import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chooseFolder } from '../../vscode-client/src/pure/folders';

test("the active document's folder wins, even when it is not the first", () => {
  assert.deepEqual(chooseFolder('b', ['a', 'b', 'c']), { kind: 'use', folder: 'b' });
});

test('without an active document: the only folder, else ask among all, else none', () => {
  assert.deepEqual(chooseFolder(undefined, ['a']), { kind: 'use', folder: 'a' });
  assert.deepEqual(chooseFolder(undefined, ['a', 'b']), { kind: 'ask', folders: ['a', 'b'] });
  assert.deepEqual(chooseFolder(undefined, []), { kind: 'none' });
  assert.deepEqual(chooseFolder(undefined, undefined), { kind: 'none' });
});
