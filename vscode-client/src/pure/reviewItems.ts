// Review suggestions → comment-thread text, GitHub review comments, and the base-branch choice.
import type { PrSuggestionsResult, Suggestion } from '../protocol';

const KIND_TITLES: Record<string, string> = {
  'reintroduces-revert': 'Brings back a reverted change',
  'reintroduces-fixed': 'Brings back code a fix replaced',
  'rewrites-fix': 'Rewrites a fix',
  'reverted-before': 'Reverted before',
  'reintroduces-pitfall': 'Reintroduces a known pitfall',
  constraint: 'Constraint',
  'decision-context': 'Decision context',
  'co-change': 'Usually changes together',
  fragile: 'Every recent change needed a fix',
};

export function kindTitle(kind: string): string {
  return KIND_TITLES[kind] ?? kind;
}

/** The comment author line, e.g. "WhyLens · Reverted before (82%)". */
export function threadAuthor(s: Suggestion): string {
  const pct = Number.isFinite(s.confidence) ? ` (${Math.round(s.confidence * 100)}%)` : '';
  return `WhyLens · ${kindTitle(s.kind)}${pct}`;
}

/** The thread header: where it is, e.g. "Pool.acquire · pool.py:17". */
export function threadLabel(s: Suggestion): string {
  const where = `${s.path}:${s.line}`;
  return s.symbol ? `${s.symbol} · ${where}` : where;
}

/** One entry of GitHub's "create a review" `comments` array. */
export interface GithubReviewComment {
  path: string;
  line: number;
  side: 'RIGHT' | 'LEFT';
  body: string;
}

export function githubComment(s: Suggestion): GithubReviewComment {
  return { path: s.path, line: s.line, side: s.side === 'LEFT' ? 'LEFT' : 'RIGHT', body: s.body };
}

export function githubCommentText(s: Suggestion): string {
  return JSON.stringify(githubComment(s), null, 2);
}

/** Accept the result object, or a bare array of suggestions; drop malformed entries. */
export function suggestionsOf(result: PrSuggestionsResult | Suggestion[] | null | undefined): Suggestion[] {
  const list = Array.isArray(result) ? result : result?.suggestions ?? [];
  return list.filter((s) => s && typeof s.path === 'string' && Number.isInteger(s.line) && s.line >= 1);
}

/** 0-based line for a 1-based suggestion line, clamped to the document. */
export function threadLine(s: Suggestion, lineCount: number): number {
  return Math.max(0, Math.min(Math.max(lineCount - 1, 0), s.line - 1));
}

const PREFERRED = ['main', 'master', 'trunk', 'develop', 'origin/main', 'origin/master', 'origin/HEAD'];

/** `git for-each-ref --format=%(refname:short)` output → base choices, likely bases first. */
export function baseChoices(refsOutput: string, current: string | undefined): string[] {
  const refs = refsOutput
    .split(/\r?\n/)
    .map((r) => r.trim())
    .filter((r) => r && r !== current && !r.endsWith('/HEAD') && r !== 'HEAD');
  const unique = [...new Set(refs)];
  const rank = (r: string) => {
    const i = PREFERRED.indexOf(r);
    return i === -1 ? PREFERRED.length + (r.includes('/') ? 1 : 0) : i;
  };
  return unique.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

export function reviewSummary(count: number, base: string): string {
  if (count === 0) return `WhyLens: no review comments against ${base} — nothing known is confident enough.`;
  return `WhyLens: ${count} review comment${count === 1 ? '' : 's'} against ${base}.`;
}
