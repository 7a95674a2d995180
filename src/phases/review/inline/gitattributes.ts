/**
 * Which files a repository marks as generated in its `.gitattributes`
 * files, read as text (never by running git in the checkout): the
 * `gitlab-generated` attribute, which GitLab reads to collapse a file, and
 * `linguist-generated`, which GitLab's language statistics read. Set, or
 * `=true`, marks a file; unset (`-attr`) or `=false` marks it as written by
 * hand, which wins over any guess from its name.
 *
 * Patterns follow git's rules: a pattern without a slash matches a name at
 * any depth below its file's folder, one with a slash matches the path from
 * that folder; a pattern that names a folder does not reach the files inside
 * it (`dist/**` does); later lines win over earlier ones, and a deeper
 * folder's file over its parents'. The globs are matched by a table, not a
 * backtracking regular expression, so no pattern can make a match slow.
 */

/** Largest `.gitattributes` read; a longer one is read up to this size. */
export const ATTRIBUTES_CHARS = 200_000;

interface Rule {
  matches: (relative: string) => boolean;
  /** true: generated; false: written by hand; per attribute, in the order they matter. */
  gitlab: boolean | undefined;
  linguist: boolean | undefined;
}

/** The rules of the `.gitattributes` files, by the folder holding each ('' for the root). */
export type AttributeRules = ReadonlyMap<string, readonly Rule[]>;

/** Reads each folder's `.gitattributes` text into its rules. */
export function attributeRules(files: ReadonlyMap<string, string>): AttributeRules {
  return new Map([...files].map(([folder, text]) => [folder, parseAttributes(text)]));
}

function unquote(pattern: string): string {
  if (!pattern.startsWith('"') || !pattern.endsWith('"') || pattern.length < 2) return pattern;
  return pattern.slice(1, -1).replace(/\\(.)/g, '$1');
}

/** The value an attribute token gives `name`: set, unset, or not named by the token. */
function valueOf(token: string, name: string): boolean | undefined {
  if (token === name || token === `${name}=true`) return true;
  if (token === `-${name}` || token === `${name}=false`) return false;
  // `!name` makes it unspecified again: no opinion of this line
  return undefined;
}

/** Longest pattern read; a longer one marks nothing. */
const PATTERN_CHARS = 1_024;

type Token =
  | { kind: 'char'; char: string }
  | { kind: 'any' } // `?`: one character but `/`
  | { kind: 'class'; negated: boolean; ranges: [string, string][] }
  | { kind: 'star' } // `*`: any run without `/`
  | { kind: 'globstar' } // `**` elsewhere: any run, `/` included
  | { kind: 'dirs' }; // `**/`: nothing, or any run that ends with `/`

/** A character class from `[` at `at`; undefined when it is not closed (then `[` is a plain character). */
function classAt(pattern: string, at: number): { token: Token; end: number } | undefined {
  let i = at + 1;
  const negated = pattern[i] === '!' || pattern[i] === '^';
  if (negated) i++;
  const ranges: [string, string][] = [];
  for (let first = true; i < pattern.length; first = false) {
    if (pattern[i] === ']' && !first)
      return { token: { kind: 'class', negated, ranges }, end: i + 1 };
    let from = pattern[i]!;
    if (from === '\\' && i + 1 < pattern.length) from = pattern[++i]!;
    i++;
    if (pattern[i] === '-' && pattern[i + 1] !== undefined && pattern[i + 1] !== ']') {
      ranges.push([from, pattern[i + 1]!]);
      i += 2;
    } else ranges.push([from, from]);
  }
  return undefined;
}

function tokenize(pattern: string): Token[] {
  const tokens: Token[] = [];
  for (let i = 0; i < pattern.length;) {
    const c = pattern[i]!;
    if (c === '*') {
      let end = i;
      while (pattern[end] === '*') end++;
      const alone =
        (i === 0 || pattern[i - 1] === '/') && (end === pattern.length || pattern[end] === '/');
      if (end - i >= 2 && alone) {
        if (pattern[end] === '/') {
          tokens.push({ kind: 'dirs' });
          end++;
        } else tokens.push({ kind: 'globstar' });
      } else tokens.push({ kind: 'star' });
      i = end;
    } else if (c === '?') {
      tokens.push({ kind: 'any' });
      i++;
    } else if (c === '[' && classAt(pattern, i)) {
      const { token, end } = classAt(pattern, i)!;
      tokens.push(token);
      i = end;
    } else if (c === '\\' && i + 1 < pattern.length) {
      tokens.push({ kind: 'char', char: pattern[i + 1]! });
      i += 2;
    } else {
      tokens.push({ kind: 'char', char: c });
      i++;
    }
  }
  return tokens;
}

function matchesOne(token: Token, c: string): boolean {
  if (token.kind === 'char') return token.char === c;
  if (c === '/') return false;
  if (token.kind === 'any') return true;
  if (token.kind !== 'class') return false;
  const inside = token.ranges.some(([from, to]) => from <= c && c <= to);
  return inside !== token.negated;
}

/**
 * Whether the glob's tokens match the whole path: a table of "tokens from i
 * match the path from j", filled from the ends, so a pattern of many `*`
 * costs its length times the path's, never a backtracking search.
 */
function globMatches(tokens: readonly Token[], path: string): boolean {
  const n = path.length;
  let next: boolean[] = Array.from({ length: n + 1 }, (_, j) => j === n);
  for (let i = tokens.length - 1; i >= 0; i--) {
    const token = tokens[i]!;
    const row: boolean[] = new Array<boolean>(n + 1).fill(false);
    // for `**/`: whether some `/` at or after j is followed by a match of the rest
    let slashThenRest = false;
    for (let j = n; j >= 0; j--) {
      const c = path[j];
      if (token.kind === 'star') row[j] = next[j]! || (c !== undefined && c !== '/' && row[j + 1]!);
      else if (token.kind === 'globstar') row[j] = next[j]! || (c !== undefined && row[j + 1]!);
      else if (token.kind === 'dirs') {
        if (c === '/' && next[j + 1]) slashThenRest = true;
        row[j] = next[j]! || slashThenRest;
      } else row[j] = c !== undefined && matchesOne(token, c) && next[j + 1]!;
    }
    next = row;
  }
  return next[0]!;
}

function compile(pattern: string): Rule['matches'] | undefined {
  // a negative pattern is an error in git, and a folder pattern reaches no file
  if (pattern === '' || pattern.startsWith('!') || pattern.endsWith('/')) return undefined;
  if (pattern.length > PATTERN_CHARS) return undefined;
  const anchored = pattern.replace(/^\//, '');
  const tokens = tokenize(anchored);
  if (!anchored.includes('/'))
    return (relative) => globMatches(tokens, relative.slice(relative.lastIndexOf('/') + 1));
  return (relative) => globMatches(tokens, relative);
}

/** The rules of one `.gitattributes` text that speak of generated files, in file order. */
export function parseAttributes(text: string): Rule[] {
  const rules: Rule[] = [];
  for (const raw of text.slice(0, ATTRIBUTES_CHARS).split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const quoted = line.startsWith('"') ? /^"(?:[^"\\]|\\.)*"/.exec(line)?.[0] : undefined;
    const pattern = quoted ?? line.split(/\s+/)[0]!;
    const tokens = line
      .slice(pattern.length)
      .trim()
      .split(/\s+/)
      .filter((t) => t !== '');
    let gitlab: boolean | undefined;
    let linguist: boolean | undefined;
    for (const token of tokens) {
      gitlab = valueOf(token, 'gitlab-generated') ?? gitlab;
      linguist = valueOf(token, 'linguist-generated') ?? linguist;
    }
    if (gitlab === undefined && linguist === undefined) continue;
    const matches = compile(unquote(pattern));
    if (matches) rules.push({ matches, gitlab, linguist });
  }
  return rules;
}

/** The folders whose `.gitattributes` could speak of these paths: the root and every parent folder. */
export function attributeFolders(paths: readonly string[]): string[] {
  const folders = new Set<string>(['']);
  for (const path of paths) {
    const parts = path.split('/').slice(0, -1);
    for (let i = 1; i <= parts.length; i++) folders.add(parts.slice(0, i).join('/'));
  }
  return [...folders].sort((a, b) => a.length - b.length || a.localeCompare(b));
}

/**
 * What the attributes say of a file: true when marked generated, false when
 * marked written by hand, undefined when they do not say. `gitlab-generated`
 * wins over `linguist-generated`, as GitLab reads them.
 */
export function generatedByAttributes(path: string, rules: AttributeRules): boolean | undefined {
  let gitlab: boolean | undefined;
  let linguist: boolean | undefined;
  // from the root down, each line in order: the last line that says something wins
  for (const folder of attributeFolders([path])) {
    const own = rules.get(folder);
    if (!own) continue;
    const relative = folder === '' ? path : path.slice(folder.length + 1);
    for (const rule of own) {
      if (!rule.matches(relative)) continue;
      gitlab = rule.gitlab ?? gitlab;
      linguist = rule.linguist ?? linguist;
    }
  }
  return gitlab ?? linguist;
}
