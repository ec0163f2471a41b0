// List a .vsix and fail when it holds anything beyond the manifest, the bundle, README, LICENSE,
// CHANGELOG and media/ (what .vscodeignore is meant to let through).
// Usage: node vscode-client/scripts/check-vsix.mjs [path/to/file.vsix]
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const vsix = process.argv[2] ?? path.join(root, `${manifest.name}-${manifest.version}.vsix`);

// The packaging metadata vsce always writes, then what we ship.
export const ALLOWED = [
  /^\[Content_Types\]\.xml$/,
  /^extension\.vsixmanifest$/,
  /^extension\/package\.json$/,
  /^extension\/(readme|README)\.md$/,
  /^extension\/(changelog|CHANGELOG)\.md$/,
  /^extension\/(LICENSE|LICENSE\.txt|license\.txt)$/,
  /^extension\/vscode-client\/dist\/extension\.js$/,
  /^extension\/vscode-client\/dist\/wheels\/whylens-[^/]+\.whl$/,
  /^extension\/media\/[^/]+$/,
];
const REQUIRED = ['extension/package.json', 'extension/vscode-client/dist/extension.js', 'extension/LICENSE.txt'];

// vsce writes zip files; `unzip -Z1` lists names only. Fall back to python's zipfile.
let names;
try {
  names = execFileSync('unzip', ['-Z1', vsix], { encoding: 'utf8' });
} catch {
  names = execFileSync('python3', ['-c', 'import sys, zipfile; print("\\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))', vsix], { encoding: 'utf8' });
}
const entries = names.split(/\r?\n/).filter((n) => n && !n.endsWith('/'));
console.log(`${path.relative(root, vsix)}: ${entries.length} files, ${fs.statSync(vsix).size} bytes`);
for (const entry of entries) console.log(`  ${entry}`);
const unexpected = entries.filter((e) => !ALLOWED.some((re) => re.test(e)));
const missing = REQUIRED.filter((r) => !entries.some((e) => e === r || e.toLowerCase() === r.toLowerCase() || (r.endsWith('LICENSE.txt') && /^extension\/LICENSE(\.txt)?$/i.test(e))));
if (unexpected.length || missing.length) {
  for (const e of unexpected) console.error(`unexpected in the .vsix: ${e} (add it to .vscodeignore)`);
  for (const m of missing) console.error(`missing from the .vsix: ${m}`);
  process.exit(1);
}
console.log('vsix contents OK');
