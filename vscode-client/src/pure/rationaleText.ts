// Server answers (markdown in a few shapes) → one markdown string, and names for the read-only view.

/** The server's explain command and explainError request answer markdown: a string or {markdown}. */
export function markdownOf(result: unknown): string | null {
  if (typeof result === 'string') return result.trim() ? result : null;
  if (result && typeof result === 'object') {
    const obj = result as Record<string, unknown>;
    for (const key of ['markdown', 'value', 'contents']) {
      const value = obj[key];
      if (typeof value === 'string') return value.trim() ? value : null;
    }
  }
  return null;
}

/** A file-name-safe title: `Session.send` → `Session.send`, `a/b c` → `a-b-c`. */
export function documentName(title: string): string {
  const safe = title.replace(/[^\w.\-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 80);
  return `${safe || 'rationale'}.md`;
}

/** The first markdown heading, as a title for the view; else the fallback. */
export function titleOf(markdown: string, fallback: string): string {
  const m = /^#{1,3}\s+(.+)$/m.exec(markdown);
  return m ? m[1].replace(/[`*_]/g, '').trim() : fallback;
}

/** The selection, else the clipboard; null when both are blank. */
export function errorText(selection: string | undefined, clipboard: string | undefined): string | null {
  for (const text of [selection, clipboard]) {
    if (text && text.trim()) return text.length > 100_000 ? text.slice(-100_000) : text;
  }
  return null;
}

/** What the client's Show Rationale command receives from a rewritten code lens. */
export interface LensRationaleArgs {
  serverArguments: unknown[];
  title?: string;
}

interface CommandLike {
  title: string;
  command: string;
  arguments?: unknown[];
  tooltip?: string;
}

/**
 * The server's lenses run its explain command, which only returns markdown; route them through
 * the client's Show Rationale command (which shows that markdown). Other commands pass unchanged.
 */
export function rewriteLensCommand<C extends CommandLike>(command: C | undefined, explainCommand: string, showCommand: string): C | undefined {
  if (!command || command.command !== explainCommand) return command;
  const args: LensRationaleArgs = { serverArguments: command.arguments ?? [], title: command.title };
  return { ...command, command: showCommand, arguments: [args] };
}

export function isLensRationaleArgs(value: unknown): value is LensRationaleArgs {
  return !!value && typeof value === 'object' && Array.isArray((value as LensRationaleArgs).serverArguments);
}
