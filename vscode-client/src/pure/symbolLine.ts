// Where a symbol is defined in a file's text, without a parser: good enough to jump to a search
// hit's symbol (the server anchors precisely; this only positions the cursor).

const DEFINERS = ['def', 'async def', 'class', 'function', 'func', 'fn', 'struct', 'interface', 'trait', 'impl', 'enum', 'type'];

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** 0-based line of the definition of `symbol` (qualified: `Pool.acquire` looks for `acquire`). */
export function findSymbolLine(text: string, symbol: string | undefined): number {
  if (!symbol) return 0;
  const bare = symbol.split(/\.|::|\)\.|\s/).filter(Boolean).pop() ?? symbol;
  const lines = text.split(/\r?\n/);
  const definition = new RegExp(`\\b(?:${DEFINERS.map(escape).join('|')})\\s+(?:\\([^)]*\\)\\s*)?${escape(bare)}\\b`);
  const found = lines.findIndex((line) => definition.test(line));
  if (found >= 0) return found;
  const mention = new RegExp(`\\b${escape(bare)}\\b`);
  return Math.max(0, lines.findIndex((line) => mention.test(line)));
}
