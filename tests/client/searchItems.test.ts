import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SearchHit } from '../../vscode-client/src/protocol';
import { hitMarkdown, hitRow, markdownText, hitTarget, resultMessage, searchParams, shortDate, typeIcon, typeName } from '../../vscode-client/src/pure/searchItems';

const hit: SearchHit = {
  id: 'abc123def456', type: 'pattern', title: 'Deadlock when the pool is exhausted',
  content: 'Deadlock when the pool is exhausted.', score: 7.5,
  commit: '0123456789abcdef0123456789abcdef01234567', author: 'Ada Lovelace', date: '2023-11-16T22:13:20+00:00',
  files: ['pool.py'], symbols: ['Pool.acquire'], source: 'commit', url: null,
};

test('each knowledge type has its own codicon; unknown types get a neutral one', () => {
  const icons = ['fact', 'skill', 'pattern', 'record'].map(typeIcon);
  assert.equal(new Set(icons).size, 4);
  assert.equal(typeIcon('decision'), typeIcon('record'));
  assert.equal(typeName('decision'), 'decision');
  assert.equal(typeIcon('Pattern'), 'bug');
  assert.equal(typeIcon('weird'), 'note');
  assert.equal(typeName('record'), 'decision');
});

test('a row shows icon + title, the type, then date · file symbol · author · short sha', () => {
  assert.deepEqual(hitRow(hit), {
    label: '$(bug) Deadlock when the pool is exhausted',
    description: 'pattern',
    detail: '2023-11-16 · pool.py Pool.acquire · Ada Lovelace · 0123456',
  });
  const bare = hitRow({ ...hit, title: '', content: 'x '.repeat(200), files: [], symbols: [], author: '', commit: '' });
  assert.ok(bare.label.endsWith('…'));
  assert.ok(bare.label.length <= 100 + '$(bug) '.length);
  assert.equal(bare.detail, '2023-11-16');
});

test('a hit the history undid says so on its row; a landed one does not', () => {
  const sha = 'fedcba9876543210fedcba9876543210fedcba98';
  assert.equal(hitRow({ ...hit, outcome: 'reverted', reverted_by: sha }).description, 'pattern · reverted by fedcba9');
  assert.equal(hitRow({ ...hit, type: 'decision', outcome: 'superseded' }).description, 'decision · superseded');
  assert.equal(hitRow({ ...hit, type: 'decision', outcome: 'landed' }).description, 'decision');
  assert.equal(hitRow({ ...hit, outcome: 'reverted', reverted_by: '$(alert)' }).description, 'pattern · reverted');
});

test('blank and one-character queries are not sent', () => {
  assert.equal(searchParams('  ', 20), null);
  assert.equal(searchParams('a', 20), null);
  assert.deepEqual(searchParams(' deadlock ', 20), { query: 'deadlock', k: 20 });
  assert.deepEqual(searchParams('pool', 500, 'file:///ws'), { query: 'pool', k: 100, uri: 'file:///ws' });
  assert.equal(searchParams('x'.repeat(5000), 10)!.query.length, 1000);
});

test('choosing a hit: its symbol story, else its url, else the hit itself', () => {
  assert.deepEqual(hitTarget(hit), { kind: 'symbol', path: 'pool.py', symbol: 'Pool.acquire' });
  assert.deepEqual(hitTarget({ ...hit, symbols: [], url: 'https://github.com/o/r/commit/0123' }), { kind: 'url', url: 'https://github.com/o/r/commit/0123' });
  assert.deepEqual(hitTarget({ ...hit, symbols: [] }), { kind: 'markdown' });
});

test('a hit on its own renders title, provenance and anchors', () => {
  const md = hitMarkdown({ ...hit, content: 'Fixed by releasing the lock.', url: 'https://x/c/0123' });
  assert.match(md, /^# pattern: Deadlock when the pool is exhausted/);
  assert.match(md, /Fixed by releasing the lock\\\./);
  assert.match(md, /\[`0123456789ab`\]\(https:\/\/x\/c\/0123\) · Ada Lovelace · 2023-11-16/);
  assert.match(md, /Symbols: `Pool.acquire`/);
});

test('dates shorten; the placeholder says what happened', () => {
  assert.equal(shortDate('2024-01-02T03:04:05+01:00'), '2024-01-02');
  assert.equal(shortDate('yesterday'), 'yesterday');
  assert.match(resultMessage('', 0, false), /Type to search/);
  assert.equal(resultMessage('pool', 0, true), 'Nothing known is confident enough for "pool"');
  assert.equal(resultMessage('pool', 1, false), '1 result for "pool"');
  assert.equal(resultMessage('pool', 3, false), '3 results for "pool"');
});

test('history text in a hit stays text: no image, link, HTML, heading or icon forms', () => {
  const evil = '![](https://tracker.example.com/p.png) <img src=x> [x](command:evil) # head\n- item\n$(bug) www.evil.example.com';
  const md = hitMarkdown({ ...hit, title: evil, content: evil, author: 'Mallory <m@evil.example.com>',
    files: ['a`b.py'], url: 'javascript:alert(1)' });
  // each form only counts unescaped (a backslash before it makes it text)
  for (const bad of [/(^|[^\\])!\[/, /(^|[^\\])<img/, /(^|[^\\])\]\(command/, /\n# head/, /\n- item/, /javascript:/]) {
    assert.ok(!bad.test(md), `${bad} matched in ${md}`);
  }
  assert.match(md, /Files: `` a`b.py ``/);
  assert.equal(markdownText('a.b\n\n# c'), 'a\\.b  \n\\# c');
  const row = hitRow({ ...hit, title: 'Fix $(alert) icon\u001b[2J' });
  assert.ok(row.label.startsWith('$(bug) ') && row.label.includes('\\$(alert)') && !row.label.includes('\u001b'));
});
