// Search results → quick pick rows, and what choosing a row opens. Pure formatting only.
import type { SearchHit, SearchParams } from '../protocol';

/** Codicon per knowledge type. */
const TYPE_ICONS: Record<string, string> = {
  fact: 'law',
  skill: 'tools',
  pattern: 'bug',
  record: 'milestone',
  decision: 'milestone',
};

export function typeIcon(type: string): string {
  return TYPE_ICONS[type.toLowerCase()] ?? 'note';
}

export function typeName(type: string): string {
  const t = type.toLowerCase();
  return t === 'record' ? 'decision' : t;
}

/** The request for a query, or null when there is nothing to ask (blank or one character). */
export function searchParams(query: string, k: number, uri?: string): SearchParams | null {
  const trimmed = query.trim();
  if (trimmed.length < 2) return null;
  const params: SearchParams = { query: trimmed.slice(0, 1000), k: Math.max(1, Math.min(100, k)) };
  if (uri) params.uri = uri;
  return params;
}

/** `2023-11-15T10:00:00+00:00` → `2023-11-15`; anything else unchanged. */
export function shortDate(date: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})/.exec(date ?? '');
  return m ? m[1] : date ?? '';
}

function oneLine(text: string, max: number): string {
  const flat = (text ?? '').replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

export interface HitRow {
  label: string;
  description: string;
  detail: string;
}

export function hitRow(hit: SearchHit): HitRow {
  const where = hit.symbols?.[0] ? `${hit.files?.[0] ?? ''} ${hit.symbols[0]}`.trim() : hit.files?.[0] ?? '';
  const detail = [shortDate(hit.date), where, hit.author, hit.commit ? hit.commit.slice(0, 7) : '']
    .filter((part) => part)
    .join(' · ');
  return {
    label: `$(${typeIcon(hit.type)}) ${oneLine(hit.title || hit.content, 100)}`,
    description: typeName(hit.type),
    detail,
  };
}

export type HitTarget =
  | { kind: 'symbol'; path: string; symbol: string }
  | { kind: 'url'; url: string }
  | { kind: 'markdown' };

/** Choosing a row: the story of its symbol, else its web page, else the hit itself. */
export function hitTarget(hit: SearchHit): HitTarget {
  if (hit.symbols?.length && hit.files?.length) {
    return { kind: 'symbol', path: hit.files[0], symbol: hit.symbols[0] };
  }
  if (hit.url) return { kind: 'url', url: hit.url };
  return { kind: 'markdown' };
}

/** A hit shown on its own (when it has no symbol to explain). */
export function hitMarkdown(hit: SearchHit): string {
  const lines = [`# ${typeName(hit.type)}: ${hit.title || oneLine(hit.content, 80)}`, ''];
  if (hit.content && hit.content !== hit.title) lines.push(hit.content, '');
  const commit = hit.commit ? `\`${hit.commit.slice(0, 12)}\`` : '';
  const source = hit.url ? `[${commit || 'source'}](${hit.url})` : commit;
  lines.push(`*${[source, hit.author, shortDate(hit.date)].filter((p) => p).join(' · ')}*`);
  if (hit.files?.length) lines.push('', `Files: ${hit.files.map((f) => `\`${f}\``).join(', ')}`);
  if (hit.symbols?.length) lines.push('', `Symbols: ${hit.symbols.map((s) => `\`${s}\``).join(', ')}`);
  return lines.join('\n') + '\n';
}

/** The placeholder line under the input: what happened with the last query. */
export function resultMessage(query: string, count: number, abstained: boolean): string {
  if (!query.trim()) return 'Type to search decisions, pitfalls and fixes from this repository\'s history';
  if (abstained || count === 0) return `Nothing known is confident enough for "${query.trim()}"`;
  return `${count} result${count === 1 ? '' : 's'} for "${query.trim()}"`;
}
