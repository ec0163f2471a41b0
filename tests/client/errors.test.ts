import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DiagnosticLike, MAX_ERRORS_PER_FILE, SentErrors, errorsPayload } from '../../vscode-client/src/pure/errors';

const range = (line: number) => ({ start: { line, character: 4 }, end: { line, character: 9 } });
const diag = (over: Partial<DiagnosticLike>): DiagnosticLike => ({ severity: 0, message: 'boom', range: range(3), ...over });

test('only Error diagnostics of other tools are forwarded, with code values unwrapped', () => {
  const payload = errorsPayload('file:///ws/pool.py', [
    diag({ message: 'TimeoutError: pool exhausted', source: 'pytest', code: { value: 'E1', target: {} } }),
    diag({ severity: 1, message: 'a warning' }),
    diag({ source: 'whylens', message: 'our own hint' }),
    diag({ source: 'WhyLens', message: 'our own hint, other case' }),
    diag({ message: 'no source', code: 42, range: range(7) }),
  ]);
  assert.deepEqual(payload, {
    uri: 'file:///ws/pool.py',
    errors: [
      { range: range(3), message: 'TimeoutError: pool exhausted', source: 'pytest', code: 'E1' },
      { range: range(7), message: 'no source', source: null, code: 42 },
    ],
  });
});

test('a file with very many errors sends a bounded list with bounded messages', () => {
  const many = Array.from({ length: 500 }, (_, i) => diag({ message: 'x'.repeat(5000), range: range(i) }));
  const { errors } = errorsPayload('file:///a', many);
  assert.equal(errors.length, MAX_ERRORS_PER_FILE);
  assert.equal(errors[0].message.length, 2000);
});

test('unchanged lists are not resent; an emptied list is sent once; reset forgets', () => {
  const sent = new SentErrors();
  const one = errorsPayload('file:///a', [diag({})]);
  const none = errorsPayload('file:///a', []);
  assert.equal(sent.next(none), null, 'nothing to clear for a file never sent');
  assert.deepEqual(sent.next(one), one);
  assert.equal(sent.next(one), null);
  assert.deepEqual(sent.next(none), none);
  assert.equal(sent.next(none), null);
  assert.deepEqual(sent.next(one), one);
  sent.reset();
  assert.deepEqual(sent.next(one), one, 'after a restart everything is sent again');
  sent.forget('file:///a');
  assert.deepEqual(sent.next(one), one, 'a reopened document is sent again');
  sent.forget('file:///never-sent');
});
