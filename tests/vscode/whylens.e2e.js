// The WhyLens extension in a real VS Code (code-server's web build), driven through headless
// Chromium with playwright-core. Started by tests/vscode/run.sh, which prepares everything.
//
//   node whylens.e2e.js <workbench-url> <artifacts-dir>
//   env: WORKSPACE_INFO  JSON from make_workspace.py (file, function, lines, base branch)
//        CHROMIUM        the browser executable
//
// Each check saves a screenshot (<n>-<name>.png, or <n>-<name>-FAIL.png) and the run ends with
// results.json; the exit code is 1 when any check failed. Every wait polls the page for a real
// state change with a deadline; nothing sleeps for a fixed time to "let things settle".
'use strict';
const { chromium } = require('playwright-core');
const fs = require('fs');
const os = require('os');
const path = require('path');

const url = process.argv[2];
const artifacts = process.argv[3];
const info = JSON.parse(process.env.WORKSPACE_INFO || '{}');
const FILE = info.file || 'pool.py';
const FUNCTION = info.function || 'acquire';

const t0 = Date.now();
const log = (...a) => console.log(`[${((Date.now() - t0) / 1000).toFixed(1)}s]`, ...a);

/** Poll `probe` until it returns a truthy value; throw `what` after `timeoutMs`. */
async function until(page, what, probe, timeoutMs = 30000, everyMs = 250) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    last = await probe().catch((e) => { last = e; return undefined; });
    if (last && !(last instanceof Error)) return last;
    await page.waitForTimeout(everyMs);
  }
  throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}`);
}

async function runCommand(page, title, { escape = true } = {}) {
  // A focus change in flight (e.g. an output channel taking focus) can close the palette while
  // it is being typed into: try again, up to three times.
  for (let attempt = 1; ; attempt++) {
    try {
      if (escape) await page.keyboard.press('Escape'); // (Escape would also clear an editor selection)
      await page.keyboard.press('F1');
      const input = page.locator('.quick-input-widget input');
      await input.waitFor({ state: 'visible', timeout: 10000 });
      await input.fill(`>${title}`, { timeout: 5000 });
      await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor({ timeout: 10000 });
      await page.keyboard.press('Enter');
      return;
    } catch (e) {
      if (attempt === 3) throw e;
      log(`retrying command "${title}": ${e.message.split('\n')[0]}`);
    }
  }
}

async function openFile(page, name) {
  // from the explorer: quick open skips git-ignored files and its keybinding depends on focus
  await page.keyboard.press('Escape');
  await page.locator('.explorer-folders-view .monaco-list-row', { hasText: name }).first().click();
  await page.locator('.tabs-container .tab.active', { hasText: name }).first().waitFor({ timeout: 15000 });
}

/** The visible editor's token for `word` (the first one). */
function wordLocator(page, word) {
  return page.locator('.editor-group-container.active .monaco-editor .view-lines .view-line span span', {
    hasText: new RegExp(`^${word}$`),
  }).first();
}

/** Hover `word` once; the hover's text when it matches `expect` within `waitMs`, else ''. */
async function hoverOnce(page, word, expect, waitMs = 4000) {
  const target = wordLocator(page, word);
  await target.waitFor({ timeout: 30000 });
  const hover = page.locator('.monaco-hover').filter({ visible: true }).first();
  const box = await target.boundingBox();
  // away first (off the editor, so an open hover closes), then onto the word
  await page.mouse.move(150, 500);
  await hover.waitFor({ state: 'hidden', timeout: 3000 }).catch(() => undefined);
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2, { steps: 4 });
  const deadline = Date.now() + waitMs;
  while (Date.now() < deadline) {
    const text = (await hover.count()) ? await hover.innerText().catch(() => '') : '';
    if (expect.test(text)) return text;
    await page.waitForTimeout(200);
  }
  return '';
}

async function hoverText(page, word, expect, timeoutMs) {
  return until(page, `a hover on ${word} matching ${expect}`, () => hoverOnce(page, word, expect), timeoutMs, 100);
}

/** The WhyLens output channel's lines containing `needle` (filtered: the view is virtualized). */
async function channelLines(page, needle, unfilteredMarker = /Sending request|Received/) {
  await runCommand(page, 'WhyLens: Show Logs');
  const panel = page.locator('.part.panel');
  await panel.locator('.monaco-select-box, select', { hasText: 'WhyLens' }).first().waitFor({ timeout: 15000 });
  const filter = panel.locator('input[placeholder^="Filter"]').filter({ visible: true }).first();
  // the filter applies after a debounce; wait until the view shows only matching lines.
  // Long lines wrap and Monaco renders spaces as nbsp: normalise, then split at timestamps.
  return until(page, `the WhyLens output filtered by "${needle}"`, async () => {
    if ((await filter.inputValue()) !== needle) await filter.fill(needle);
    const text = (await panel.innerText().catch(() => '')).replace(/\s+/g, ' ');
    const lines = text.split(/(?=\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ )/).filter((l) => l.includes(needle));
    return lines.length && !unfilteredMarker.test(text) ? lines : undefined;
  }, 15000);
}

/** The "server started" lines: one per start (there is always the first one). */
const startLines = (page) => channelLines(page, 'server started', /Sending request|Received|interpreter /);

/** Text of every frame (webviews such as the markdown preview live in nested iframes). */
async function framesText(page) {
  const texts = [];
  for (const frame of page.frames()) {
    texts.push(await frame.evaluate(() => (document.body ? document.body.innerText : '')).catch(() => ''));
  }
  return texts.join('\n');
}

const checks = [];
let currentShot = ''; // path prefix of the running check's screenshots

/** A screenshot in the middle of a check (the check's own is taken when it ends). */
async function extraShot(page, suffix) {
  await page.screenshot({ path: `${currentShot}-${suffix}.png` });
}
function check(name, fn) {
  checks.push({ name, fn });
}

if (process.env.WHYLENS_E2E_INSTALL === '1') {
  // The interpreter lacks the server: the client offers to install it into a private environment.
  check('install', async (page) => {
    const button = page.locator('.notifications-toasts .monaco-button', { hasText: 'Install in a Private Environment' }).first();
    await button.waitFor({ timeout: 60000 });
    await extraShot(page, 'offer');
    await button.click();
    await page.locator('.notifications-toasts', { hasText: /Installing the WhyLens server|Creating a private/ }).first()
      .waitFor({ timeout: 60000 });
    await extraShot(page, 'progress');
    await openFile(page, FILE);
    await hoverText(page, FUNCTION, /deadlock/i, 600000);
    return 'installed into the private environment; the hover works';
  });
}

check('hover', async (page) => {
  await openFile(page, FILE);
  // the index is built by the server's child process on first start: allow it time
  const text = await hoverText(page, FUNCTION, /deadlock/i, 120000);
  if (!text.includes(`Pool.${FUNCTION}`)) throw new Error(`hover lacks the symbol name: ${text.slice(0, 200)}`);
  return `hover: ${JSON.stringify(text.slice(0, 160))}`;
});

check('codelens', async (page) => {
  await page.mouse.move(5, 5);
  await page.keyboard.press('Escape');
  const lens = page.locator('.editor-group-container.active .codelens-decoration a', { hasText: /why/i }).first();
  await lens.waitFor({ timeout: 60000 });
  const title = await lens.innerText();
  if (!/decision|pitfall|changed/.test(title)) throw new Error(`unexpected lens title: ${title}`);
  return `lens: ${JSON.stringify(title)}`;
});

check('status', async (page) => {
  // the language status item sits behind the "{ } Python" entry of the status bar
  const entry = page.locator('[id="status.languageStatus"]').first();
  await entry.waitFor({ timeout: 15000 });
  const text = await until(page, 'the WhyLens status with counts', async () => {
    await entry.click();
    const hover = page.locator('.monaco-hover, .context-view', { hasText: 'WhyLens' }).filter({ visible: true }).first();
    await hover.waitFor({ timeout: 3000 }).catch(() => undefined);
    const all = (await hover.count()) ? await hover.innerText() : '';
    return /\d+ units? · \d+ records?/.test(all) ? all : undefined;
  }, 30000, 500);
  const line = text.split('\n').find((l) => /units?/.test(l)) || text;
  return `status: ${JSON.stringify(line.trim())}`;
});

check('rationale', async (page) => {
  await page.locator('.editor-group-container .codelens-decoration a', { hasText: /why/i }).first().click();
  await page.locator('.tabs-container .tab', { hasText: `Pool.${FUNCTION}` }).first().waitFor({ timeout: 30000 });
  const text = await until(page, 'the rationale preview with decisions', async () => {
    const all = await framesText(page);
    return /Decisions/.test(all) && /Fix deadlock when the pool is exhausted/.test(all) ? all : undefined;
  }, 30000);
  const tab = await page.locator('.tabs-container .tab', { hasText: `Pool.${FUNCTION}` }).first().innerText();
  return `rationale tab ${JSON.stringify(tab.trim())}; ${text.includes('Rejected') || text.includes('Cause') ? 'with cause/alternatives' : ''}`;
});

check('search', async (page) => {
  await runCommand(page, 'View: Close All Editors');
  await page.locator('.tabs-container .tab').first().waitFor({ state: 'detached', timeout: 15000 });
  await runCommand(page, 'WhyLens: Search Knowledge');
  const input = page.locator('.quick-input-widget input');
  await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Search Knowledge' }).waitFor({ timeout: 15000 });
  await input.pressSequentially('deadlock pool', { delay: 30 });
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Fix deadlock when the pool is exhausted' }).first();
  await row.waitFor({ timeout: 30000 });
  const rowText = await row.innerText();
  if (!/2023-11-20/.test(rowText) || !/pool\.py/.test(rowText)) throw new Error(`detail line lacks date/file: ${rowText}`);
  await extraShot(page, 'results');
  // choosing it jumps to the symbol and opens its rationale
  await row.click();
  await page.locator('.tabs-container .tab', { hasText: FILE }).first().waitFor({ timeout: 30000 });
  await page.locator('.tabs-container .tab', { hasText: `Pool.${FUNCTION}` }).first().waitFor({ timeout: 30000 });
  return `row: ${JSON.stringify(rowText.replace(/\s+/g, ' '))}; choosing it opened ${FILE} and its rationale`;
});

check('pitfall', async (page) => {
  await page.keyboard.press('Escape');
  await openFile(page, FILE);
  await runCommand(page, 'View: Focus Problems');
  const hint = page.locator('.markers-panel .monaco-list-row', { hasText: 'Known pitfall' }).first();
  await hint.waitFor({ timeout: 60000 });
  const text = await hint.innerText();
  const error = page.locator('.markers-panel .monaco-list-row', { hasText: 'e2e-helper' });
  if (!(await error.count())) throw new Error('the injected error itself is not in the Problems panel');
  return `problems: ${JSON.stringify(text.replace(/\s+/g, ' ').slice(0, 200))}`;
});

check('review', async (page) => {
  await page.keyboard.press('Escape');
  await runCommand(page, 'WhyLens: Suggest Review Comments');
  const base = page.locator('.quick-input-list .monaco-list-row', { hasText: info.base || 'main' }).first();
  await base.waitFor({ timeout: 15000 });
  const input = page.locator('.quick-input-widget input');
  await input.fill(info.base || 'main');
  await base.waitFor({ timeout: 15000 });
  await page.keyboard.press('Enter');
  const thread = page.locator('.review-widget', { hasText: /reverted/i }).first();
  await thread.waitFor({ timeout: 60000 });
  await thread.scrollIntoViewIfNeeded().catch(() => undefined);
  const text = await thread.innerText();
  if (!/WhyLens/.test(text)) throw new Error(`thread without the WhyLens author: ${text.slice(0, 200)}`);
  for (const action of ['Copy as GitHub review comment', 'Dismiss']) {
    if (!(await thread.locator(`[aria-label="${action}"]`).count())) throw new Error(`no "${action}" action on the thread`);
  }
  await thread.locator('[aria-label="Copy as GitHub review comment"]').first().click();
  const copied = await until(page, 'the GitHub review comment on the clipboard', async () => {
    const clip = await page.evaluate(() => navigator.clipboard.readText());
    return clip.includes('"side"') ? JSON.parse(clip) : undefined;
  }, 15000);
  if (copied.path !== FILE || !Number.isInteger(copied.line) || !copied.body) throw new Error(`bad copy: ${JSON.stringify(copied)}`);
  return `thread: ${JSON.stringify(text.replace(/\s+/g, ' ').slice(0, 160))}; copied {path: ${copied.path}, line: ${copied.line}, side: ${copied.side}}`;
});

check('review-dismiss', async (page) => {
  const threads = page.locator('.review-widget', { hasText: /reverted/i });
  const before = await threads.count();
  await threads.first().locator('[aria-label="Dismiss"]').first().click();
  await until(page, 'the dismissed thread to disappear', async () => (await threads.count()) < before, 15000);
  return `threads on screen: ${before} → ${await threads.count()}`;
});

check('explain-error', async (page) => {
  await runCommand(page, 'View: Close All Editors');
  await openFile(page, info.error_file || 'failure.log');
  await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().click();
  await page.keyboard.press('Control+A');
  await runCommand(page, 'WhyLens: Explain Error', { escape: false });
  await page.locator('.tabs-container .tab', { hasText: 'Preview' }).first().waitFor({ timeout: 30000 });
  const text = await until(page, 'the known pitfalls preview', async () => {
    const all = await framesText(page);
    return /Known pitfall/i.test(all) && /deadlock/i.test(all) ? all : undefined;
  }, 30000);
  const line = text.split('\n').find((l) => /Known pitfall/i.test(l)) || '';
  return `explained: ${JSON.stringify(line.slice(0, 160))}`;
});

check('restart-and-logs', async (page) => {
  const before = (await startLines(page)).length;
  await runCommand(page, 'WhyLens: Restart Server');
  const lines = await until(page, 'one more "server started" line in the WhyLens output', async () => {
    const now = await startLines(page);
    return now.length === before + 1 ? now : undefined;
  }, 60000);
  await extraShot(page, 'logs');
  await openFile(page, FILE);
  await hoverText(page, FUNCTION, /deadlock/i, 60000);
  return `restarted; hover works again; ${lines.length} start lines in the log`;
});

/** Replace a settings file the way a user would: open it in the editor, replace, save. */
async function writeSettings(page, command, marker, settings) {
  await runCommand(page, command);
  // (Code 1.139 opens it in a modal editor, older ones in a tab: find the editor by its content)
  const editor = page.locator('.monaco-editor', { hasText: marker }).filter({ visible: true }).last();
  await editor.waitFor({ timeout: 15000 });
  await editor.locator('.view-lines').click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(JSON.stringify(settings, null, 2)); // (no auto-closing brackets)
  await page.keyboard.press('Control+S');
  await page.locator('.tab.dirty', { hasText: 'settings.json' }).first().waitFor({ state: 'detached', timeout: 15000 });
  await runCommand(page, 'View: Close All Editors');
  await editor.waitFor({ state: 'detached', timeout: 15000 });
}

const writeUserSettings = (page, settings) =>
  writeSettings(page, 'Preferences: Open User Settings (JSON)', 'workbench.startupEditor', settings);
// machine-scoped settings (the interpreter) live in the remote settings of a remote window
const writeRemoteSettings = (page, settings) =>
  writeSettings(page, 'Preferences: Open Remote Settings (JSON)', 'whylens.server.interpreter', settings);

check('reindex', async (page) => {
  // "index updated" is logged by the server after every index run (there was one at start-up)
  const before = (await channelLines(page, 'index updated')).length;
  await runCommand(page, 'WhyLens: Reindex');
  const lines = await until(page, 'one more index run', async () => {
    const now = await channelLines(page, 'index updated');
    return now.length > before ? now : undefined;
  }, 60000);
  return `index runs logged: ${before} → ${lines.length} (${JSON.stringify(lines[lines.length - 1].slice(24, 140))})`;
});

check('settings', async (page) => {
  const file = process.env.WHYLENS_E2E_SETTINGS;
  const settings = JSON.parse(fs.readFileSync(file, 'utf8'));
  const machine = JSON.parse(fs.readFileSync(process.env.WHYLENS_E2E_MACHINE_SETTINGS, 'utf8'));
  const before = (await startLines(page)).length;
  // an ordinary setting reaches the running server: no restart
  await writeUserSettings(page, { ...settings, 'whylens.hover.enabled': false });
  await openFile(page, FILE);
  await until(page, 'no why-card once whylens.hover.enabled is false', async () =>
    (await hoverOnce(page, FUNCTION, /deadlock/i, 2500)) === '' && (await hoverOnce(page, FUNCTION, /deadlock/i, 2500)) === '', 30000);
  const afterHoverOff = (await startLines(page)).length;
  if (afterHoverOff !== before) throw new Error(`changing hover.enabled restarted the server (${before} → ${afterHoverOff} starts)`);
  if (process.env.WHYLENS_E2E_INSTALL === '1') {
    // the setting names a Python without the server; the private environment runs it either way
    await writeUserSettings(page, settings);
    return 'hover.enabled=false: hover gone, no restart (interpreter part skipped in install mode)';
  }
  // the interpreter setting restarts it, with the new command
  await writeUserSettings(page, settings); // (hover back on)
  const interpreter = [...machine['whylens.server.interpreter'], '-X', 'utf8'];
  await writeRemoteSettings(page, { ...machine, 'whylens.server.interpreter': interpreter });
  const lines = await until(page, 'a restart with the new interpreter', async () => {
    const now = await startLines(page);
    return now.length === before + 1 && now[now.length - 1].includes('-X utf8') ? now : undefined;
  }, 60000);
  await openFile(page, FILE);
  await hoverText(page, FUNCTION, /deadlock/i, 60000);
  return `hover.enabled=false: hover gone, no restart; interpreter changed: 1 restart (${JSON.stringify(lines[lines.length - 1].slice(24, 120))})`;
});

(async () => {
  fs.mkdirSync(artifacts, { recursive: true });
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'whylens-chromium-'));
  const ctx = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM || 'chromium',
    headless: true,
    viewport: { width: 1500, height: 950 },
    permissions: ['clipboard-read', 'clipboard-write'],
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = ctx.pages()[0] || await ctx.newPage();
  const results = [];
  try {
    await page.goto(url, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector('.monaco-workbench', { timeout: 60000 });
    await page.waitForSelector('.explorer-folders-view .monaco-list-row', { timeout: 60000 });
    log('workbench ready');
    for (const [i, { name, fn }] of checks.entries()) {
      const shot = path.join(artifacts, `${i + 1}-${name}`);
      currentShot = shot;
      try {
        const detail = await fn(page);
        await page.screenshot({ path: `${shot}.png` });
        results.push({ name, ok: true, detail });
        log(`PASS ${name}: ${detail}`);
      } catch (e) {
        await page.screenshot({ path: `${shot}-FAIL.png` }).catch(() => undefined);
        results.push({ name, ok: false, detail: e.message });
        log(`FAIL ${name}: ${e.message}`);
      }
    }
  } catch (e) {
    await page.screenshot({ path: path.join(artifacts, 'startup-FAIL.png') }).catch(() => undefined);
    results.push({ name: 'startup', ok: false, detail: e.message });
    log(`FAIL startup: ${e.message}`);
  } finally {
    fs.writeFileSync(path.join(artifacts, 'results.json'), JSON.stringify(results, null, 2) + '\n');
    await ctx.close();
    fs.rmSync(userDataDir, { recursive: true, force: true });
  }
  const failed = results.filter((r) => !r.ok);
  log(failed.length ? `FAILED: ${failed.map((r) => r.name).join(', ')}` : `PASS: ${results.length} checks`);
  process.exitCode = failed.length || results.length < checks.length ? 1 : 0;
})();
