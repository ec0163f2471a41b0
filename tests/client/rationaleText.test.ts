import assert from 'node:assert/strict';
import { test } from 'node:test';
import { documentName, errorText, isLensRationaleArgs, markdownOf, rewriteLensCommand, titleOf } from '../../vscode-client/src/pure/rationaleText';
import { findSymbolLine } from '../../vscode-client/src/pure/symbolLine';

test('markdown comes as a string or inside an object; blank means nothing', () => {
  assert.equal(markdownOf('# Pool.acquire'), '# Pool.acquire');
  assert.equal(markdownOf({ markdown: '# x' }), '# x');
  assert.equal(markdownOf({ value: 'v' }), 'v');
  assert.equal(markdownOf({ markdown: '   ' }), null);
  assert.equal(markdownOf(null), null);
  assert.equal(markdownOf(42), null);
});

test('the server explain command on a lens is routed through Show Rationale with its arguments', () => {
  const lens = { title: 'why: 1 decision', command: 'whylens.server.explainSymbol', arguments: [{ uri: 'file:///a.py', symbol: 'f' }] };
  const rewritten = rewriteLensCommand(lens, 'whylens.server.explainSymbol', 'whylens.showRationale')!;
  assert.equal(rewritten.command, 'whylens.showRationale');
  assert.equal(rewritten.title, 'why: 1 decision');
  assert.ok(isLensRationaleArgs(rewritten.arguments![0]));
  assert.deepEqual(rewritten.arguments, [{ serverArguments: [{ uri: 'file:///a.py', symbol: 'f' }], title: 'why: 1 decision' }]);
  const other = { title: 't', command: 'editor.action.showReferences' };
  assert.equal(rewriteLensCommand(other, 'whylens.server.explainSymbol', 'whylens.showRationale'), other);
  assert.equal(rewriteLensCommand(undefined, 'a', 'b'), undefined);
  assert.ok(!isLensRationaleArgs({ uri: 'x' }));
});

test('view names and titles', () => {
  assert.equal(documentName('Pool.acquire'), 'Pool.acquire.md');
  assert.equal(documentName('a/b c?'), 'a-b-c.md');
  assert.equal(documentName('///'), 'rationale.md');
  assert.equal(titleOf('intro\n## `Pool.acquire` — why\n', 'x'), 'Pool.acquire — why');
  assert.equal(titleOf('no heading', 'fallback'), 'fallback');
});

test('error text: selection first, then clipboard; huge text keeps its end', () => {
  assert.equal(errorText('Traceback', 'clip'), 'Traceback');
  assert.equal(errorText('  ', 'clip'), 'clip');
  assert.equal(errorText(undefined, ''), null);
  const huge = 'a'.repeat(150_000) + 'TimeoutError';
  assert.ok(errorText(huge, undefined)!.endsWith('TimeoutError'));
  assert.equal(errorText(huge, undefined)!.length, 100_000);
});

test('a symbol is found at its definition, else at its first mention', () => {
  const text = 'import x\n\nclass Pool:\n    def acquire(self):\n        return acquire_lock()\n';
  assert.equal(findSymbolLine(text, 'Pool.acquire'), 3);
  assert.equal(findSymbolLine(text, 'Pool'), 2);
  assert.equal(findSymbolLine('func (s *Server) Serve() {}', '(*Server).Serve'), 0);
  assert.equal(findSymbolLine(text, 'acquire_lock'), 4);
  assert.equal(findSymbolLine(text, 'missing'), 0);
  assert.equal(findSymbolLine(text, undefined), 0);
});
