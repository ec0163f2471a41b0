// Other tools' diagnostics → the `whylens/errorsChanged` payload. Pure: diagnostics arrive as
// plain objects shaped like vscode.Diagnostic (severity 0 = Error, as in vscode's enum).
import type { ErrorsChangedParams, ForwardedError } from '../protocol';

export const ERROR_SEVERITY = 0;
export const OWN_SOURCE = 'whylens';
/** A file with more errors than this sends only the first ones (the server caps hints anyway). */
export const MAX_ERRORS_PER_FILE = 50;
const MAX_MESSAGE = 2000;

export interface DiagnosticLike {
  severity: number;
  message: string;
  source?: string;
  code?: string | number | { value: string | number; target?: unknown };
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
}

function codeOf(code: DiagnosticLike['code']): string | number | null {
  if (code === undefined || code === null) return null;
  if (typeof code === 'object') return code.value ?? null;
  return code;
}

export function forwardedErrors(diagnostics: readonly DiagnosticLike[]): ForwardedError[] {
  return diagnostics
    .filter((d) => d.severity === ERROR_SEVERITY && (d.source ?? '').toLowerCase() !== OWN_SOURCE)
    .slice(0, MAX_ERRORS_PER_FILE)
    .map((d) => ({
      range: {
        start: { line: d.range.start.line, character: d.range.start.character },
        end: { line: d.range.end.line, character: d.range.end.character },
      },
      message: d.message.length > MAX_MESSAGE ? d.message.slice(0, MAX_MESSAGE) : d.message,
      source: d.source ?? null,
      code: codeOf(d.code),
    }));
}

export function errorsPayload(uri: string, diagnostics: readonly DiagnosticLike[]): ErrorsChangedParams {
  return { uri, errors: forwardedErrors(diagnostics) };
}

/**
 * Remembers what was last sent per document so unchanged error lists are not sent again, and an
 * emptied list is sent exactly once (the server clears its hints on it).
 */
export class SentErrors {
  private readonly last = new Map<string, string>();

  /** The payload to send, or null when the server already has exactly this. */
  next(payload: ErrorsChangedParams): ErrorsChangedParams | null {
    const key = JSON.stringify(payload.errors);
    const previous = this.last.get(payload.uri);
    if (previous === key || (previous === undefined && payload.errors.length === 0)) return null;
    if (payload.errors.length === 0) this.last.delete(payload.uri);
    else this.last.set(payload.uri, key);
    return payload;
  }

  /** Forget one document (it was closed: the server dropped its hints with it). */
  forget(uri: string): void {
    this.last.delete(uri);
  }

  /** Forget everything (the server restarted and knows nothing). */
  reset(): void {
    this.last.clear();
  }
}
