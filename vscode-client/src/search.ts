// WhyLens: Search Knowledge — a quick pick with live results as you type (debounced
// `whylens/search`); choosing a result opens its rationale, its web page, or the hit itself.
import * as vscode from 'vscode';
import { CancellationTokenSource, LanguageClient } from 'vscode-languageclient/node';
import { Requests, SearchHit, SearchResult } from './protocol';
import { hitMarkdown, hitRow, hitTarget, resultMessage, searchParams } from './pure/searchItems';
import { readClientSettings } from './pure/settings';

interface HitItem extends vscode.QuickPickItem {
  hit: SearchHit;
}

const OPEN_URL: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('link-external'), tooltip: 'Open in browser' };
const OPEN_FILE: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('go-to-file'), tooltip: 'Go to the code' };

export interface SearchActions {
  showSymbolRationale(path: string, symbol: string): Promise<void>;
  showMarkdown(title: string, markdown: string): Promise<void>;
  goToSymbol(path: string, symbol: string | undefined): Promise<void>;
}

export async function searchKnowledge(
  client: LanguageClient,
  folder: vscode.WorkspaceFolder,
  actions: SearchActions,
  log: vscode.LogOutputChannel,
): Promise<void> {
  const settings = readClientSettings(vscode.workspace.getConfiguration('whylens'));
  const pick = vscode.window.createQuickPick<HitItem>();
  pick.title = `WhyLens: Search Knowledge (${folder.name})`;
  pick.placeholder = resultMessage('', 0, false);
  pick.matchOnDescription = false;
  pick.matchOnDetail = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let inflight: CancellationTokenSource | undefined;

  const runQuery = async (query: string) => {
    inflight?.cancel();
    const params = searchParams(query, settings.searchMaxResults, folder.uri.toString());
    if (!params) {
      pick.items = [];
      pick.busy = false;
      pick.placeholder = resultMessage('', 0, false);
      return;
    }
    const source = (inflight = new CancellationTokenSource());
    pick.busy = true;
    try {
      const result = await client.sendRequest<SearchResult | null>(Requests.search, params, source.token);
      if (source.token.isCancellationRequested) return;
      const hits = result?.results ?? [];
      pick.items = hits.map((hit) => ({
        ...hitRow(hit),
        hit,
        alwaysShow: true, // the server ranks; don't let the quick pick re-filter by label
        buttons: [...(hit.url ? [OPEN_URL] : []), ...(hit.files?.length ? [OPEN_FILE] : [])],
      }));
      pick.placeholder = resultMessage(query, hits.length, !!result?.abstained);
    } catch (err) {
      if (source.token.isCancellationRequested) return;
      const message = err instanceof Error ? err.message : String(err);
      log.error(`search "${query}": ${message}`);
      pick.items = [];
      pick.placeholder = `Search failed: ${message}`;
    } finally {
      if (inflight === source) pick.busy = false;
    }
  };

  pick.onDidChangeValue((value) => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void runQuery(value), settings.searchDebounceMs);
  });
  pick.onDidTriggerItemButton(async ({ button, item }) => {
    if (button === OPEN_URL && item.hit.url) await vscode.env.openExternal(vscode.Uri.parse(item.hit.url));
    if (button === OPEN_FILE && item.hit.files?.length) {
      pick.hide();
      await actions.goToSymbol(item.hit.files[0], item.hit.symbols?.[0]);
    }
  });
  pick.onDidAccept(async () => {
    const chosen = pick.selectedItems[0];
    if (!chosen) return;
    pick.hide();
    const target = hitTarget(chosen.hit);
    if (target.kind === 'symbol') await actions.showSymbolRationale(target.path, target.symbol);
    else if (target.kind === 'url') await vscode.env.openExternal(vscode.Uri.parse(target.url));
    else await actions.showMarkdown(chosen.hit.title || chosen.hit.id, hitMarkdown(chosen.hit));
  });
  pick.onDidHide(() => {
    if (timer) clearTimeout(timer);
    inflight?.cancel();
    pick.dispose();
  });
  pick.show();
}
