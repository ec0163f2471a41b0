// Run the client's pure-logic tests (tests/client/*.test.ts) under node:test. Each test file is
// bundled with esbuild into node_modules/.cache (`vscode` left external: a test that pulls it in
// fails, which is the point — these tests run without an editor).
import * as esbuild from 'esbuild';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const testDir = path.join(root, 'tests/client');
const outDir = path.join(root, 'node_modules/.cache/whylens-client-tests');
fs.rmSync(outDir, { recursive: true, force: true });

const entries = fs.readdirSync(testDir).filter((f) => f.endsWith('.test.ts')).map((f) => path.join(testDir, f));
if (entries.length === 0) {
  console.error(`no tests in ${testDir}`);
  process.exit(1);
}
await esbuild.build({
  entryPoints: entries,
  outdir: outDir,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node18',
  external: ['vscode'],
  outExtension: { '.js': '.cjs' },
  sourcemap: 'inline',
  logLevel: 'warning',
});
const files = fs.readdirSync(outDir).filter((f) => f.endsWith('.cjs')).map((f) => path.join(outDir, f));
const result = spawnSync(process.execPath, ['--enable-source-maps', '--test', '--test-reporter=spec', ...files], { stdio: 'inherit', cwd: root });
process.exit(result.status ?? 1);
