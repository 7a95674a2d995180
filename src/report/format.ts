/** Formatting shared by the notes: always UTC, so rendered notes are stable. */

/** `2024-11-28 10:00:00 UTC`: always UTC, so the same state renders the same text. */
export function formatTimestamp(epochMs: number): string {
  const iso = new Date(epochMs).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

/** `850ms`, `42s`, `3m 05s`, `1h 02m`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, '0')}m`;
}

/** `12,345`. */
export function formatCount(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** `$0.0123` for small amounts, `$1.23` otherwise. */
export function formatCost(usd: number): string {
  return usd < 0.1 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

/** `50%` of done/total, rounded down so 99.6% never shows as 100%. */
export function percent(done: number, total: number): string {
  if (total <= 0) return '0%';
  return `${Math.floor((done / total) * 100)}%`;
}
