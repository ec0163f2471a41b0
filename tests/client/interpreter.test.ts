import assert from 'node:assert/strict';
import { test } from 'node:test';
import { installSteps, interpreterCandidates, parseProbe, probeCommand, serverCommand, venvPython } from '../../vscode-client/src/pure/interpreter';

test('an explicit setting replaces the automatic choices; the private venv stays the fallback', () => {
  assert.deepEqual(interpreterCandidates(['/x/python'], ['/ext/python'], '/venv/bin/python'), [
    { command: ['/x/python'], source: 'setting' },
    { command: ['/venv/bin/python'], source: 'private-venv' },
  ]);
  assert.deepEqual(interpreterCandidates(['/x/python'], ['/ext/python'], undefined), [{ command: ['/x/python'], source: 'setting' }]);
});

test('otherwise: Python extension, private venv, python3 — without duplicates', () => {
  assert.deepEqual(
    interpreterCandidates([], ['/ext/python'], '/venv/bin/python').map((c) => c.source),
    ['python-extension', 'private-venv', 'default'],
  );
  assert.deepEqual(interpreterCandidates([], undefined, undefined), [{ command: ['python3'], source: 'default' }]);
  assert.deepEqual(interpreterCandidates([], ['python3'], undefined).map((c) => c.source), ['python-extension']);
});

test('Restricted Mode: no Python extension choice, no interpreter inside the workspace', () => {
  const roots = ['/work/repo'];
  assert.deepEqual(
    interpreterCandidates([], ['/work/repo/.venv/bin/python'], '/venv/bin/python', roots).map((c) => c.source),
    ['private-venv', 'default'],
  );
  assert.deepEqual(
    interpreterCandidates(['/work/repo/.venv/bin/python'], undefined, undefined, roots), [],
  );
  assert.deepEqual(
    interpreterCandidates(['/work/repo/../other/python'], undefined, undefined, roots).map((c) => c.command[0]),
    ['/work/repo/../other/python'],
  );
  assert.deepEqual(
    interpreterCandidates([], ['/work/repo/.venv/bin/python'], undefined).map((c) => c.source),
    ['python-extension', 'default'],
  );
});

test('the server runs as `-m whylens serve` after any extra interpreter arguments', () => {
  assert.deepEqual(serverCommand(['py', '-X', 'utf8']), { command: 'py', args: ['-X', 'utf8', '-P', '-m', 'whylens', 'serve'] });
  const probe = probeCommand(['python3']);
  assert.equal(probe.command, 'python3');
  assert.equal(probe.args[0], '-c');
  assert.match(probe.args[1], /import whylens/);
});

test('a good probe is ok', () => {
  const r = parseProbe(['python3'], { code: 0, stdout: '{"python": "3.11.7", "executable": "/usr/bin/python3", "whylens": "0.1.0"}\n', stderr: '' });
  assert.deepEqual(r, { ok: true, python: '3.11.7', executable: '/usr/bin/python3', whylens: '0.1.0' });
});

test('a missing server names the interpreter and the import error', () => {
  const r = parseProbe(['/usr/bin/python3'], {
    code: 0, stdout: '{"python": "3.12.1", "error": "ModuleNotFoundError: No module named \'whylens\'"}', stderr: '',
  });
  assert.equal(r.ok, false);
  assert.equal(r.pythonTooOld, undefined);
  assert.match(r.problem!, /not installed for "\/usr\/bin\/python3"/);
  assert.match(r.problem!, /No module named/);
});

test('an old Python is reported as too old even when whylens imports', () => {
  const r = parseProbe(['python3'], { code: 0, stdout: '{"python": "3.9.18", "whylens": "0.1.0"}', stderr: '' });
  assert.equal(r.ok, false);
  assert.equal(r.pythonTooOld, true);
  assert.match(r.problem!, /needs Python 3\.11/);
  assert.equal(parseProbe(['p'], { code: 0, stdout: '{"python": "4.0.0", "whylens": "1"}', stderr: '' }).ok, true);
});

test('a command that is missing or not Python gives a readable problem', () => {
  assert.match(parseProbe(['nope'], { code: null, stdout: '', stderr: '', spawnError: 'command not found' }).problem!, /cannot run "nope": command not found/);
  assert.match(parseProbe(['/bin/false'], { code: 1, stdout: '', stderr: '' }).problem!, /not a working Python \(exit code 1\)/);
  assert.match(parseProbe(['x'], { code: 2, stdout: 'garbage', stderr: 'SyntaxError: bad\n' }).problem!, /SyntaxError: bad/);
});

test('install steps: venv, then pip from the packaged wheel or PyPI', () => {
  const fromPypi = installSteps(['python3'], '/g/server-venv', 'linux', []);
  assert.deepEqual(fromPypi[0].args, ['-m', 'venv', '/g/server-venv']);
  assert.equal(fromPypi[1].command, '/g/server-venv/bin/python');
  assert.equal(fromPypi[1].args.at(-1), 'whylens');
  const fromWheel = installSteps(['py', '-3.12'], 'C:\\g\\v', 'win32', ['/x/whylens-0.1.0-py3-none-any.whl', '/x/whylens-0.2.0-py3-none-any.whl', '/x/notes.txt']);
  assert.equal(fromWheel[0].command, 'py');
  assert.deepEqual(fromWheel[0].args.slice(0, 1), ['-3.12']);
  assert.equal(fromWheel[1].command, 'C:\\g\\v\\Scripts\\python.exe');
  assert.equal(fromWheel[1].args.at(-1), '/x/whylens-0.2.0-py3-none-any.whl');
  assert.equal(venvPython('/v', 'darwin'), '/v/bin/python');
});
