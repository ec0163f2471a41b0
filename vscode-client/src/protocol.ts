// The custom protocol between this client and the WhyLens server. Names and payload shapes mirror
// server/whylens/lsp/protocol.py exactly (tests/client/manifest.test.ts checks the names against
// it). No `vscode` import: pure data.

/** Custom requests (client → server). */
export const Requests = {
  search: 'whylens/search',
  why: 'whylens/why',
  explainError: 'whylens/explainError',
  prSuggestions: 'whylens/prSuggestions',
} as const;

/** Custom notifications. */
export const Notifications = {
  /** server → client: index state for the status item */
  indexStatus: 'whylens/indexStatus',
  /** client → server: other tools' Error diagnostics of one visible document */
  errorsChanged: 'whylens/errorsChanged',
} as const;

/** Commands the server implements (`workspace/executeCommand`); the client never registers them. */
export const ServerCommands = {
  explainSymbol: 'whylens.server.explainSymbol',
  reindex: 'whylens.server.reindex',
} as const;

/** Commands the client implements (contributed in package.json). */
export const ClientCommands = {
  search: 'whylens.search',
  showRationale: 'whylens.showRationale',
  explainError: 'whylens.explainError',
  suggestReview: 'whylens.suggestReview',
  reindex: 'whylens.reindex',
  showLogs: 'whylens.showLogs',
  restartServer: 'whylens.restartServer',
  installServer: 'whylens.installServer',
  copyReviewComment: 'whylens.review.copyAsGithub',
  dismissReviewComment: 'whylens.review.dismiss',
} as const;

export interface LspPosition {
  line: number;
  character: number;
}

export interface LspRange {
  start: LspPosition;
  end: LspPosition;
}

// --- whylens/search ----------------------------------------------------------------------------

export const SEARCH_TYPES = ['fact', 'skill', 'pattern', 'decision'] as const;

export interface SearchParams {
  query: string;
  k: number; // 1..100
  types?: (typeof SEARCH_TYPES)[number][];
  uri?: string; // a file or folder URI: picks the workspace (default: the first indexed one)
}

/** One hit, the shape `whylens search --json` prints. */
export interface SearchHit {
  id: string;
  type: string; // fact | skill | pattern | decision
  title: string;
  content: string;
  score: number;
  commit: string;
  author: string;
  date: string;
  files: string[];
  symbols: string[];
  source: string;
  url: string | null;
  outcome?: string | null; // a decision's; "reverted" for a commit or unit a standing revert undid
  reverted_by?: string; // that revert's sha
}

export interface SearchResult {
  query: string;
  abstained: boolean;
  results: SearchHit[];
}

// --- whylens/explainError ------------------------------------------------------------------------

export interface ExplainErrorParams {
  text: string;
  uri?: string;
}

export interface PitfallItem {
  id: string;
  type: string;
  title: string;
  reason: string;
  score: number;
  line: number | null;
  url: string | null;
  fix: { id: string; title: string; url: string | null } | null;
}

/** null when there is no index. */
export interface ExplainErrorResult {
  count: number;
  pitfalls: PitfallItem[];
  markdown: string;
}

// --- whylens/prSuggestions -----------------------------------------------------------------------

export interface PrSuggestionsParams {
  base?: string; // absent: the merge base with the default branch
  head?: string; // absent: the working tree
  uri?: string;
}

export interface Suggestion {
  path: string; // repository-relative, forward slashes
  line: number; // 1-based
  side: 'RIGHT' | 'LEFT';
  kind: string; // reintroduces-revert | reintroduces-fixed | rewrites-fix | reverted-before | reintroduces-pitfall | constraint | decision-context | co-change | fragile
  body: string; // markdown with provenance links
  confidence: number;
  evidence: string[];
  symbol?: string | null;
}

/** null when the review could not run (the server logs why). */
export interface PrSuggestionsResult {
  suggestions: Suggestion[];
  notices?: string[]; // nothing to review, or a diff too large to review whole
}

// --- whylens/errorsChanged -----------------------------------------------------------------------

export interface ForwardedError {
  range: LspRange;
  message: string;
  source?: string | null;
  code?: string | number | null;
}

export interface ErrorsChangedParams {
  uri: string;
  errors: ForwardedError[];
}

// --- whylens/indexStatus -------------------------------------------------------------------------

export type IndexState = 'idle' | 'indexing' | 'degraded' | 'error';

export interface IndexStatusParams {
  folder?: string; // the workspace folder URI it is about
  state: IndexState;
  percent?: number | null;
  units?: number | null;
  records?: number | null;
  message?: string | null;
}

// --- whylens.server.explainSymbol ----------------------------------------------------------------

/**
 * Arguments: `[uri, symbol]` (the code lens form) or `[ExplainSymbolArgs]` (the client's form).
 * The document must be open (the server resolves it from its open documents). Answers markdown
 * or null.
 */
export interface ExplainSymbolArgs {
  uri: string;
  symbol?: string;
  position?: LspPosition;
}
