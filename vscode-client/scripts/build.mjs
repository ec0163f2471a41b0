// Bundle the client: vscode-client/src/extension.ts → vscode-client/dist/extension.js (CommonJS,
// `vscode` external). `--production` minifies and drops the source map (the .vsix build).
import * as esbuild from 'esbuild';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const production = process.argv.includes('--production');

await esbuild.build({
  entryPoints: [path.join(root, 'vscode-client/src/extension.ts')],
  outfile: path.join(root, 'vscode-client/dist/extension.js'),
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node18',
  external: ['vscode'],
  minify: production,
  sourcemap: !production,
  logLevel: 'info',
});
