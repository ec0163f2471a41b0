import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clientStateView, indexStatusView } from '../../vscode-client/src/pure/status';

test('indexing is busy and shows the percentage', () => {
  const v = indexStatusView({ state: 'indexing', percent: 41.6, message: 'commit 120 of 300' });
  assert.deepEqual(v, { text: 'WhyLens: indexing 42%', detail: 'commit 120 of 300', busy: true, severity: 'information' });
  assert.equal(indexStatusView({ state: 'indexing', percent: 250 }).text, 'WhyLens: indexing 100%');
  assert.equal(indexStatusView({ state: 'indexing' }).text, 'WhyLens: indexing');
});

test('ready shows unit and record counts', () => {
  const v = indexStatusView({ state: 'idle', units: 1234, records: 1 });
  assert.equal(v.text, 'WhyLens: 1,234 units · 1 record');
  assert.equal(v.busy, false);
  assert.equal(v.severity, 'information');
  assert.equal(indexStatusView({ state: 'idle' }).text, 'WhyLens: 0 units · 0 records');
});

test('degraded and error say why', () => {
  const d = indexStatusView({ state: 'degraded', message: 'git is not installed' });
  assert.deepEqual([d.severity, d.detail], ['warning', 'git is not installed']);
  const e = indexStatusView({ state: 'error', message: 'index is corrupt' });
  assert.deepEqual([e.severity, e.detail, e.text], ['error', 'index is corrupt', 'WhyLens: error']);
  assert.equal(indexStatusView({ state: 'bogus' as 'error' }).severity, 'error');
});

test('client states before the server reports', () => {
  assert.equal(clientStateView('starting').busy, true);
  assert.equal(clientStateView('notInstalled', 'no module named whylens').detail, 'no module named whylens');
  assert.equal(clientStateView('stopped').severity, 'error');
  assert.deepEqual([clientStateView('running').busy, clientStateView('running').severity], [false, 'information']);
});
