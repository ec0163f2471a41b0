import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Suggestion } from '../../vscode-client/src/protocol';
import { baseChoices, githubComment, githubCommentText, reviewSummary, suggestionsOf, threadAuthor, threadLabel, threadLine } from '../../vscode-client/src/pure/reviewItems';

const s: Suggestion = {
  path: 'pkg/pool.py', line: 12, side: 'RIGHT', kind: 'reverted-before',
  body: 'This change was reverted before: [abc1234](https://x/c/abc1234)', confidence: 0.816,
  evidence: ['abc1234'], symbol: 'Pool.acquire',
};

test('a GitHub review comment has exactly path, line, side and body', () => {
  assert.deepEqual(githubComment(s), { path: 'pkg/pool.py', line: 12, side: 'RIGHT', body: s.body });
  assert.deepEqual(JSON.parse(githubCommentText({ ...s, side: 'LEFT' })), { path: 'pkg/pool.py', line: 12, side: 'LEFT', body: s.body });
});

test('the thread author names the kind and confidence', () => {
  assert.equal(threadAuthor(s), 'WhyLens · Reverted before (82%)');
  assert.equal(threadAuthor({ ...s, kind: 'something-new', confidence: NaN }), 'WhyLens · something-new');
  assert.equal(threadLabel(s), 'Pool.acquire · pkg/pool.py:12');
  assert.equal(threadLabel({ ...s, symbol: null }), 'pkg/pool.py:12');
});

test('results: object or array; malformed entries dropped', () => {
  assert.equal(suggestionsOf({ suggestions: [s] }).length, 1);
  assert.equal(suggestionsOf([s, { ...s, line: 0 }, { ...s, path: undefined as unknown as string }]).length, 1);
  assert.deepEqual(suggestionsOf(null), []);
});

test('thread lines are 0-based and inside the document', () => {
  assert.equal(threadLine(s, 100), 11);
  assert.equal(threadLine({ ...s, line: 500 }, 100), 99);
  assert.equal(threadLine({ ...s, line: 1 }, 0), 0);
});

test('base choices: the current branch and symbolic HEADs excluded, likely bases first', () => {
  const refs = 'feature/x\nzeta\nmain\norigin/HEAD\norigin/main\norigin/feature/x\nalpha\n';
  assert.deepEqual(baseChoices(refs, 'feature/x'), ['main', 'origin/main', 'alpha', 'zeta', 'origin/feature/x']);
  assert.deepEqual(baseChoices('', 'main'), []);
});

test('the summary says when nothing was confident', () => {
  assert.match(reviewSummary(0, 'main'), /no review comments against main/);
  assert.equal(reviewSummary(2, 'main'), 'WhyLens: 2 review comments against main.');
});
