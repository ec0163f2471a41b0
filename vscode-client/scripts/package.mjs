// Build the .vsix: (optionally) the server wheel into vscode-client/dist/wheels, then
// `vsce package` (which runs the production build through vscode:prepublish), then the content check.
// Usage: npm run package [-- --with-wheel] [-- --out path.vsix]
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const args = process.argv.slice(2);
const outIndex = args.indexOf('--out');
const out = outIndex >= 0 ? path.resolve(args[outIndex + 1]) : path.join(root, `${manifest.name}-${manifest.version}.vsix`);

function run(command, commandArgs) {
  console.log(`> ${command} ${commandArgs.join(' ')}`);
  const result = spawnSync(command, commandArgs, { stdio: 'inherit', cwd: root });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const wheels = path.join(root, 'vscode-client/dist/wheels');
fs.rmSync(wheels, { recursive: true, force: true });
if (args.includes('--with-wheel')) {
  // The server wheel lets "Install in a Private Environment" work without finding whylens on PyPI.
  const python = process.env.PYTHON ?? 'python3';
  run(python, ['-m', 'pip', 'wheel', '--no-deps', '--quiet', '-w', wheels, root]);
}
const vsce = path.join(root, 'node_modules/@vscode/vsce/vsce');
run(process.execPath, [vsce, 'package', '--no-dependencies', '--out', out]);
run(process.execPath, [path.join(root, 'vscode-client/scripts/check-vsix.mjs'), out]);
