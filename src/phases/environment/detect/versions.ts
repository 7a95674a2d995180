import type { VersionPin } from '../../../core/environment.ts';
import { nodeMinimum, pythonMinimum } from './ranges.ts';

type Language = VersionPin['language'];

/** Words that name a moving version (`lts/*`, `latest`, `system`): no minimum. */
const MOVING = /^(?:\*|x|latest|stable|current|node|lts(?:\/.*)?|system|default)$/i;

/** Digits of a version inside a token such as `python-3.11.4`, `go1.22`, `17.0.9-tem`, `18.x`. */
function numbersOf(token: string): number[] | undefined {
  const match = /(\d+(?:\.\d+)*)/.exec(token);
  if (!match) return undefined;
  return match[1]!.split('.').map(Number);
}

function significant(numbers: number[], language: Language): number[] {
  if (language === 'java') {
    const major = numbers[0] === 1 && numbers.length > 1 ? numbers[1]! : numbers[0]!;
    return [major];
  }
  return numbers.slice(0, 2);
}

function compare(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i += 1) {
    const diff = (a[i] ?? 0) - (b[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return 0;
}

/** The lower bound of one alternative (`>=3.8,<4`, `^20`, `3.11.4`), or undefined. */
function lowerBound(alternative: string, language: Language): number[] | undefined {
  const tokens = alternative
    .replace(/(>=|<=|~=|===|==|!=|\^|~|>|<|=)\s+/g, '$1')
    .split(/[\s,]+/)
    .filter(Boolean);
  let best: number[] | undefined;
  for (const token of tokens) {
    if (token.startsWith('<') || token.startsWith('!=') || MOVING.test(token)) continue;
    const numbers = numbersOf(token);
    if (!numbers) continue;
    const bound = significant(numbers, language);
    if (!best || compare(bound, best) > 0) best = bound;
  }
  return best;
}

/**
 * The lowest version a spec allows, cut to what a check can rely on: Python
 * and Go `major.minor`, Node and Java the major (`1.8` is Java 8). Node
 * ranges are read by `semver`, Python specifiers by `@renovatebot/pep440`;
 * Java and Go versions by the token reader below (Maven ranges have their
 * own reader in `kinds/java/range.ts`). Ranges joined by `||` give the
 * smallest of their lower bounds; upper bounds and moving names (`lts/*`,
 * `latest`) give none.
 */
export function minimumVersion(spec: string, language: Language): string | undefined {
  if (language === 'node') return nodeMinimum(spec);
  if (language === 'python') return pythonMinimum(spec);
  let best: number[] | undefined;
  for (const alternative of spec.split('||')) {
    const bound = lowerBound(alternative.trim(), language);
    if (bound && (!best || compare(bound, best) < 0)) best = bound;
  }
  return best?.join('.');
}

export function pin(language: Language, spec: string, source: string): VersionPin | undefined {
  const text = spec.trim();
  if (!text) return undefined;
  const minimum = minimumVersion(text, language);
  return minimum === undefined
    ? { language, spec: text, source }
    : { language, spec: text, minimum, source };
}

/** asdf/mise `.tool-versions`: `nodejs 20.11.0`, `python 3.11.4 3.10.2`, `java temurin-17.0.2+8`. */
export function parseToolVersions(
  text: string,
  source: string,
  /** Tool name → runtime language (`nodejs` → `node`); other tools are skipped. */
  names: Readonly<Record<string, Language>>,
): VersionPin[] {
  const pins: VersionPin[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*$/, '').trim();
    const [tool, version] = line.split(/\s+/);
    const language = tool && Object.hasOwn(names, tool) ? names[tool] : undefined;
    if (!language || !version) continue;
    const found = pin(language, version, `${source} ${tool}`);
    if (found) pins.push(found);
  }
  return pins;
}

/** `.python-version`, `.nvmrc`, `.node-version`: the first line that is not a comment. */
export function firstLine(text: string): string {
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*$/, '').trim();
    if (line) return line;
  }
  return '';
}

/** Python's version check; `3.10` → `(3, 10)`. */
export function pythonTuple(minimum: string): string {
  const parts = minimum.split('.');
  return parts.length === 1 ? `(${parts[0]},)` : `(${parts.join(', ')})`;
}

const numeric = (v: string) => v.split('.').map(Number);

/** Compares dotted versions numerically (`3.9` < `3.10`). */
export const compareVersions = (a: string, b: string) => compare(numeric(a), numeric(b));

/**
 * The range a verification checks. With `allPins` (Java: the build, the
 * wrapper and the toolchain must all be satisfied) the highest minimum and
 * the lowest maximum of all pins; else the first pin with a minimum, as listed.
 */
export function rangeOf(
  allPins: boolean,
  pins: VersionPin[],
): { minimum?: string; maximum?: string } {
  if (!allPins) {
    const minimum = pins.find((v) => v.minimum)?.minimum;
    return minimum ? { minimum } : {};
  }
  let minimum: string | undefined;
  let maximum: string | undefined;
  for (const pin of pins) {
    if (pin.minimum && (!minimum || compare(numeric(pin.minimum), numeric(minimum)) > 0))
      minimum = pin.minimum;
    if (pin.maximum && (!maximum || compare(numeric(pin.maximum), numeric(maximum)) < 0))
      maximum = pin.maximum;
  }
  return { ...(minimum ? { minimum } : {}), ...(maximum ? { maximum } : {}) };
}
