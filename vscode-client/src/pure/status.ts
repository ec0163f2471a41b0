// Index status notifications (and the client's own states) → what the language status item shows.
import type { IndexStatusParams } from '../protocol';

export type Severity = 'information' | 'warning' | 'error';

export interface StatusView {
  text: string;
  detail: string;
  busy: boolean;
  severity: Severity;
}

/** States the client knows before the server reports anything. */
export type ClientState = 'starting' | 'running' | 'stopped' | 'notInstalled' | 'noRepository';

function count(n: number | null | undefined, what: string): string {
  const value = typeof n === 'number' && Number.isFinite(n) ? n : 0;
  return `${value.toLocaleString('en-US')} ${what}${value === 1 ? '' : 's'}`;
}

export function indexStatusView(status: IndexStatusParams): StatusView {
  const message = (status.message ?? '').trim();
  switch (status.state) {
    case 'indexing': {
      const pct = typeof status.percent === 'number' ? `${Math.max(0, Math.min(100, Math.round(status.percent)))}%` : '';
      return {
        text: `WhyLens: indexing ${pct}`.trim(),
        detail: message || 'Reading the history; hovers use the previous index meanwhile',
        busy: true,
        severity: 'information',
      };
    }
    case 'idle':
      return {
        text: `WhyLens: ${count(status.units, 'unit')} · ${count(status.records, 'record')}`,
        detail: message || 'Index ready',
        busy: false,
        severity: 'information',
      };
    case 'degraded':
      return { text: 'WhyLens: degraded', detail: message || 'Some features are unavailable', busy: false, severity: 'warning' };
    case 'error':
    default:
      return { text: 'WhyLens: error', detail: message || 'See the logs', busy: false, severity: 'error' };
  }
}

export function clientStateView(state: ClientState, why = ''): StatusView {
  switch (state) {
    case 'starting':
      return { text: 'WhyLens: starting', detail: why || 'Starting the server', busy: true, severity: 'information' };
    case 'running':
      return { text: 'WhyLens', detail: why || 'Server running; waiting for the index status', busy: false, severity: 'information' };
    case 'notInstalled':
      return { text: 'WhyLens: server not installed', detail: why, busy: false, severity: 'error' };
    case 'noRepository':
      return { text: 'WhyLens: no repository', detail: why || 'Open a folder inside a git repository', busy: false, severity: 'warning' };
    case 'stopped':
    default:
      return { text: 'WhyLens: stopped', detail: why || 'The server is not running', busy: false, severity: 'error' };
  }
}
