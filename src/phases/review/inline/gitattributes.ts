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
 * folder's file over its parents'.
 */
import picomatch from 'picomatch';

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

function compile(pattern: string): Rule['matches'] | undefined {
  // a negative pattern is an error in git, and a folder pattern reaches no file
  if (pattern === '' || pattern.startsWith('!') || pattern.endsWith('/')) return undefined;
  const anchored = pattern.replace(/^\//, '');
  const options = { dot: true };
  if (!anchored.includes('/')) {
    const byName = picomatch(anchored, options);
    return (relative) => byName(relative.slice(relative.lastIndexOf('/') + 1));
  }
  const byPath = picomatch(anchored, options);
  return (relative) => byPath(relative);
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
