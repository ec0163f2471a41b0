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

// C0/C1 controls and line/paragraph separators: never shown (a subject cannot drive anything)
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

function oneLine(text: string, max: number): string {
  const flat = (text ?? '').replace(CONTROL, ' ').replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** A quick pick row's text: `$(name)` in history text stays text, not an icon. */
function noIcons(text: string): string {
  return text.replace(/\$\(/g, '\\$(');
}

/** History text as markdown that renders as exactly that text: every ASCII punctuation
 * character is backslash-escaped (CommonMark), so no image, link, autolink, HTML, heading or
 * list can form; line breaks are kept as hard breaks. (The server's `markup` does the same for
 * the markdown it builds; this document is built by the client.) */
export function markdownText(text: string): string {
  return (text ?? '')
    .split(/\r?\n/)
    .map((line) => line.replace(CONTROL, ' ').trim().replace(/[!-/:-@[-`{-~]/g, '\\$&'))
    .filter((line) => line)
    .join('  \n');
}

/** A name or path as a code span, whatever backticks it holds. */
function codeSpan(text: string): string {
  const flat = oneLine(text, 300);
  const longest = Math.max(0, ...(flat.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return longest ? `${fence} ${flat} ${fence}` : `${fence}${flat}${fence}`;
}

/** Only http(s) links WhyLens's server built (no spaces, parentheses or angle brackets). */
function safeUrl(url: string | null | undefined): string | undefined {
  return url && /^https?:\/\/[^\s()<>"'`]+$/i.test(url) ? url : undefined;
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
  // what the history undid is never shown as current
  const undone = hit.outcome === 'reverted' || hit.outcome === 'superseded' ? ` · ${hit.outcome}` : '';
  const by = hit.reverted_by && /^[0-9a-f]{7,64}$/i.test(hit.reverted_by) ? ` by ${hit.reverted_by.slice(0, 7)}` : '';
  return {
    label: `$(${typeIcon(hit.type)}) ${noIcons(oneLine(hit.title || hit.content, 100))}`,
    description: `${typeName(hit.type)}${undone}${undone ? by : ''}`,
    detail: noIcons(oneLine(detail, 300)),
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
  const lines = [`# ${typeName(hit.type)}: ${markdownText(oneLine(hit.title || hit.content, 80))}`, ''];
  if (hit.content && hit.content !== hit.title) lines.push(markdownText(hit.content), '');
  const commit = hit.commit ? codeSpan(hit.commit.slice(0, 12)) : '';
  const url = safeUrl(hit.url);
  const source = url ? `[${commit || 'source'}](${url})` : commit;
  lines.push(`*${[source, markdownText(oneLine(hit.author, 100)), shortDate(hit.date)].filter((p) => p).join(' · ')}*`);
  if (hit.files?.length) lines.push('', `Files: ${hit.files.map(codeSpan).join(', ')}`);
  if (hit.symbols?.length) lines.push('', `Symbols: ${hit.symbols.map(codeSpan).join(', ')}`);
  return lines.join('\n') + '\n';
}

/** The placeholder line under the input: what happened with the last query. */
export function resultMessage(query: string, count: number, abstained: boolean): string {
  if (!query.trim()) return 'Type to search decisions, pitfalls and fixes from this repository\'s history';
  if (abstained || count === 0) return `Nothing known is confident enough for "${query.trim()}"`;
  return `${count} result${count === 1 ? '' : 's'} for "${query.trim()}"`;
}
