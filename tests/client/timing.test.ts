import assert from 'node:assert/strict';
import { mock, test } from 'node:test';
import { CoalescingQueue, KeyedDebouncer } from '../../vscode-client/src/pure/timing';

test('restarts never overlap and a burst of requests coalesces into one more run', async () => {
  let active = 0;
  let maxActive = 0;
  let runs = 0;
  const gates: (() => void)[] = [];
  const queue = new CoalescingQueue(async () => {
    active++;
    maxActive = Math.max(maxActive, active);
    runs++;
    await new Promise<void>((resolve) => gates.push(resolve));
    active--;
  });
  const first = queue.request();
  const burst = [queue.request(), queue.request(), queue.request()];
  assert.ok(queue.busy);
  await new Promise((r) => setImmediate(r));
  assert.equal(runs, 1);
  gates.shift()!();
  await first;
  await new Promise((r) => setImmediate(r));
  assert.equal(runs, 2, 'exactly one queued run for the whole burst');
  gates.shift()!();
  await Promise.all(burst);
  assert.equal(maxActive, 1);
  assert.equal(queue.busy, false);
});

test('a failing run does not block the next one', async () => {
  let calls = 0;
  const queue = new CoalescingQueue(async () => {
    calls++;
    if (calls === 1) throw new Error('boom');
  });
  const failed = queue.request();
  const next = queue.request();
  await assert.rejects(failed, /boom/);
  await next;
  assert.equal(calls, 2);
  await queue.request();
  assert.equal(calls, 3);
});

test('the debouncer fires once per key after the last trigger', () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    const fired: string[] = [];
    const d = new KeyedDebouncer<string>(100, (k) => fired.push(k));
    d.trigger('a');
    mock.timers.tick(60);
    d.trigger('a');
    d.trigger('b');
    mock.timers.tick(60);
    assert.deepEqual(fired, []);
    mock.timers.tick(50);
    assert.deepEqual(fired.sort(), ['a', 'b']);
    d.trigger('c');
    d.dispose();
    mock.timers.tick(500);
    assert.deepEqual(fired.sort(), ['a', 'b']);
    assert.equal(d.pending, 0);
  } finally {
    mock.timers.reset();
  }
});
