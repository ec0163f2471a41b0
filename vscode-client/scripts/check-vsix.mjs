// List a .vsix and fail when it holds anything beyond what vsix-rules.mjs allows (that is what
// .vscodeignore is for), or lacks what it requires.
// Usage: node vscode-client/scripts/check-vsix.mjs [path/to/file.vsix]
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import fs from 'node:fs';
import path from 'node:path';
import { checkEntries } from './vsix-rules.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const vsix = path.resolve(process.argv[2] ?? path.join(root, `${manifest.name}-${manifest.version}.vsix`));

// A .vsix is a zip: `unzip -Z1` lists the names; python's zipfile when unzip is absent.
let names;
try {
  names = execFileSync('unzip', ['-Z1', vsix], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
} catch {
  names = execFileSync('python3', ['-c', 'import sys, zipfile; print("\\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))', vsix], { encoding: 'utf8' });
}
const entries = names.split(/\r?\n/).filter((n) => n && !n.endsWith('/'));
console.log(`${path.relative(root, vsix) || vsix}: ${entries.length} files, ${fs.statSync(vsix).size} bytes`);
for (const entry of entries) console.log(`  ${entry}`);
const { unexpected, missing } = checkEntries(entries);
for (const e of unexpected) console.error(`unexpected in the .vsix: ${e} (exclude it in .vscodeignore)`);
for (const m of missing) console.error(`missing from the .vsix: ${m}`);
if (unexpected.length || missing.length) process.exit(1);
console.log('vsix contents OK');
