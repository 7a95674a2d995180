import { satisfies as pep440Satisfies, validRange as pep440Valid } from '@renovatebot/pep440';
import semver from 'semver';

/**
 * The lowest Node.js major a range allows (`>=18 <21` → 18, `>17` → 18,
 * `18 - 20` → 18, `^20 || ^22` → 20), read by `semver` as npm reads
 * `engines`. A range with no lower bound (`<21`, `*`) or a name
 * (`lts/*`, `node`) gives none.
 */
export function nodeMinimum(spec: string): string | undefined {
  const range = semver.validRange(spec.trim(), { loose: true });
  if (range === null) return undefined;
  const lowest = semver.minVersion(range, { loose: true });
  if (!lowest || semver.eq(lowest, '0.0.0')) return undefined;
  return String(lowest.major);
}

/** Whether two Node.js version specs allow a common version; unreadable specs never conflict. */
export function nodeRangesMeet(a: string, b: string): boolean {
  const left = semver.validRange(a.trim(), { loose: true });
  const right = semver.validRange(b.trim(), { loose: true });
  if (left === null || right === null) return true;
  return semver.intersects(left, right, { loose: true });
}

/**
 * The versions where a specifier's allowed set can start: each version it
 * names, the next micro, minor and major after it (`>3.8`, `!=3.6.*`).
 */
function boundaryCandidates(specifier: string): string[] {
  const found = new Set<string>();
  for (const match of specifier.matchAll(/\d+(?:\.\d+)*/g)) {
    const [major = 0, minor = 0, micro = 0] = match[0].split('.').map(Number);
    found.add(`${major}.${minor}.${micro}`);
    found.add(`${major}.${minor}.${micro + 1}`);
    found.add(`${major}.${minor + 1}.0`);
    found.add(`${major + 1}.0.0`);
  }
  return [...found].sort(compareDotted);
}

/** A Poetry or conda constraint (`^3.10`, `~3.9`, `3.11`, `3.11.*`) as a PEP 440 specifier. */
function asPep440(clause: string): string {
  const caret = /^\^\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(clause);
  if (caret) {
    const [, major, minor = '0', micro = '0'] = caret;
    const upper =
      major !== '0' ? `${Number(major) + 1}` : `0.${minor === '0' ? '1' : Number(minor) + 1}`;
    return `>=${major}.${minor}.${micro},<${upper}`;
  }
  const tilde = /^~\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(clause);
  if (tilde) {
    const [, major, minor, micro = '0'] = tilde;
    return minor === undefined
      ? `>=${major},<${Number(major) + 1}`
      : `>=${major}.${minor}.${micro},<${major}.${Number(minor) + 1}`;
  }
  // `3.11` in conda and Poetry means the 3.11 series
  if (/^\d+(?:\.\d+)*(?:\.\*)?$/.test(clause)) return `==${clause.replace(/(\d)$/, '$1.*')}`;
  // `python-3.12.1` (runtime.txt), `pypy3.10`, `cpython-3.11`
  const named = /^(?:c?python|pypy)-?(\d+(?:\.\d+)*)$/i.exec(clause);
  if (named) return `==${named[1]}.*`;
  return clause;
}

/**
 * The lowest Python `major.minor` a specifier allows, read by
 * `@renovatebot/pep440` (`>=3.6, !=3.6.*` → 3.7, `>3.8` → 3.8,
 * `>=3.10,<3.10` → none). Poetry's `^`/`~` and `||`, conda's bare `3.7` and
 * runtime.txt's `python-3.12.1` are translated first. No lower bound
 * (`<3.12`, `!=3.0.*`) or an unreadable spec gives none.
 */
export function pythonMinimum(spec: string): string | undefined {
  let best: string | undefined;
  for (const alternative of spec.split('||')) {
    const clauses = alternative
      .replace(/(>=|<=|~=|===|==|!=|\^|~|>|<)\s+/g, '$1')
      .split(/\s*,\s*|\s+/)
      .filter(Boolean)
      .map(asPep440);
    const specifier = clauses.join(',');
    if (!specifier || !pep440Valid(specifier)) continue;
    if (pep440Satisfies('0', specifier)) return undefined;
    const lowest = boundaryCandidates(specifier).find((v) => pep440Satisfies(v, specifier));
    if (!lowest) continue;
    const cut = lowest.split('.').slice(0, 2).join('.');
    if (!best || compareDotted(cut, best) < 0) best = cut;
  }
  return best;
}

function compareDotted(a: string, b: string): number {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < Math.max(x.length, y.length); i += 1) {
    const diff = (x[i] ?? 0) - (y[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return 0;
}
