/**
 * Numbers, times and durations for a note's language, through `Intl`. Times
 * are always shown in UTC (a note has no reader's time zone), so the same
 * state renders the same text.
 */
import { LOCALES, type Language } from './language.ts';

/** `Intl.DurationFormat` (Node 23+); not in the ES2023 lib typings. */
interface DurationFormatter {
  format(duration: Record<string, number>): string;
}
type DurationFormatCtor = new (
  locale: string,
  options: { style: 'narrow' | 'short' | 'long'; millisecondsDisplay?: 'always' | 'auto' },
) => DurationFormatter;

const durationFormats = new Map<string, DurationFormatter>();

/** `short`: hours, minutes, seconds; `ms`: milliseconds, shown also when 0. */
function durationFormat(language: Language, kind: 'short' | 'ms'): DurationFormatter {
  const key = `${language}:${kind}`;
  let format = durationFormats.get(key);
  if (!format) {
    const Ctor = (Intl as unknown as { DurationFormat: DurationFormatCtor }).DurationFormat;
    // "1m 30s" reads well in English; Japanese narrow units are Latin ("1m30s"), short ones are not
    // Japanese short milliseconds are "ms"; the long form, ミリ秒, reads as Japanese
    const style = language === 'en' ? 'narrow' : kind === 'ms' ? 'long' : 'short';
    format = new Ctor(LOCALES[language], {
      style,
      ...(kind === 'ms' ? { millisecondsDisplay: 'always' as const } : {}),
    });
    durationFormats.set(key, format);
  }
  return format;
}

/** `850ms`, `42s`, `3m 5s`, `1h 2m` (en); `850 ミリ秒`, `42 秒`, `3 分 5 秒` (ja). */
export function formatDuration(ms: number, language: Language = 'en'): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 1000) return durationFormat(language, 'ms').format({ milliseconds: Math.round(ms) });
  const format = durationFormat(language, 'short');
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return format.format({ seconds });
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return format.format({ minutes, seconds: seconds % 60 });
  return format.format({ hours: Math.floor(minutes / 60), minutes: minutes % 60 });
}

/** `32,307`. */
export function formatCount(n: number, language: Language = 'en'): string {
  return new Intl.NumberFormat(LOCALES[language], { maximumFractionDigits: 0 }).format(
    Math.round(n),
  );
}

/** `$0.0123` for small amounts, `$1.23` otherwise. */
export function formatCost(usd: number, language: Language = 'en'): string {
  return new Intl.NumberFormat(LOCALES[language], {
    style: 'currency',
    currency: 'USD',
    minimumFractionDigits: usd < 0.1 ? 4 : 2,
    maximumFractionDigits: usd < 0.1 ? 4 : 2,
  }).format(usd);
}

/** `50%` of done/total, rounded down so 99.6% never shows as 100%. */
export function formatPercent(done: number, total: number, language: Language = 'en'): string {
  const ratio = total <= 0 ? 0 : Math.floor((done / total) * 100) / 100;
  return new Intl.NumberFormat(LOCALES[language], { style: 'percent' }).format(ratio);
}

/** `Nov 28, 2024, 10:00 UTC` (en), `2024/11/28 10:00 UTC` (ja). */
export function formatDateTime(epochMs: number, language: Language = 'en'): string {
  const text = new Intl.DateTimeFormat(LOCALES[language], {
    dateStyle: 'medium',
    timeStyle: 'short',
    timeZone: 'UTC',
    hourCycle: 'h23',
  }).format(epochMs);
  return `${text} UTC`;
}

/**
 * `10:32 UTC`, `09:05 UTC` (en), `9:05 UTC` (ja): what `Intl.DateTimeFormat`
 * gives for a short 24-hour UTC time in each language (a test holds every
 * minute of the day against it), written without `Intl` because the run's
 * first note shows its start time and the first `Intl` formatter a process
 * builds loads ICU's locale data, tens of milliseconds before that note.
 */
export function formatClockTime(epochMs: number, language: Language = 'en'): string {
  const time = new Date(epochMs);
  const hours = String(time.getUTCHours());
  const minutes = String(time.getUTCMinutes()).padStart(2, '0');
  return `${language === 'en' ? hours.padStart(2, '0') : hours}:${minutes} UTC`;
}

/** `a, b and c` / `a、b、c`. */
export function formatList(items: readonly string[], language: Language = 'en'): string {
  return new Intl.ListFormat(LOCALES[language], { type: 'conjunction' }).format(items);
}
