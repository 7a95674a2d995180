import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import type { VersionPin } from '../../../../core/environment.ts';
import { shellQuote } from '../../../../shell/quote.ts';

/**
 * A Node.js older than the one on PATH, for a project whose test tooling
 * cannot run on a newer one (a loader such as `esm` that breaks on later
 * majors). Which major: the newest one the project itself vouches for — the
 * newest version its CI tests, an exact `.nvmrc`/`.node-version`/volta/
 * `.tool-versions` version, or the upper bound of `engines.node`. A pin that
 * names a moving version (`lts/*`, `latest`) or a range with no upper bound
 * says nothing about the newest, and a pin that allows the Node on PATH
 * means no older one is needed.
 *
 * How it is fetched: the `node` package of the npm registry (the official
 * builds, one package per platform, as this repository pins its own Node),
 * installed into the tool cache; its folder first on PATH runs the tests,
 * with npm, npx, pnpm, yarn and corepack kept on the Node they came with.
 */

export interface OlderNode {
  major: number;
  /** Where the major comes from, in words (`.github/workflows/ci.yml:12 CI tests up to 14`). */
  because: string;
}

const MOVING = /^(?:\*|x|latest|stable|current|node|lts(?:\/.*)?|system|default)$/i;

/** The highest major below `below` that `spec` allows, when `spec` excludes `below` and every later major. */
function upperMajor(spec: string, below: number): number | undefined {
  const range = semver.validRange(spec, { loose: true });
  if (range === null || semver.intersects(range, `>=${below}.0.0`, { loose: true }))
    return undefined;
  for (let major = below - 1; major >= 0; major -= 1)
    if (semver.intersects(range, `${major}.x`, { loose: true })) return major;
  return undefined;
}

/** The newest major one pin vouches for; `Infinity` when it names a moving version. */
function newestOf(pin: VersionPin, current: number): number | undefined {
  const spec = pin.spec.trim();
  if (MOVING.test(spec)) return Infinity;
  if (pin.maximum) return Number(pin.maximum.split('.')[0]);
  if (pin.source.startsWith('package.json engines')) return upperMajor(spec, current);
  const exact = semver.coerce(spec);
  return exact ? exact.major : undefined;
}

/**
 * The older major to run the tests with, or undefined when the project's
 * pins allow the Node on PATH (major `current`) or say nothing about the
 * newest it supports.
 */
export function olderNodeFor(pins: readonly VersionPin[], current: number): OlderNode | undefined {
  let best: { major: number; pin: VersionPin } | undefined;
  for (const pin of pins.filter((p) => p.language === 'node')) {
    const newest = newestOf(pin, current);
    if (newest === undefined) continue;
    if (newest >= current) return undefined;
    if (!best || newest > best.major) best = { major: newest, pin };
  }
  if (!best) return undefined;
  const what = best.pin.maximum ? `tests up to Node ${best.major}` : `asks for ${best.pin.spec}`;
  return { major: best.major, because: `${best.pin.source} ${what}` };
}

/** The folder the `node@<major>` package is installed into, below the tool cache. */
export function olderNodeDir(toolCache: string, major: number): string {
  return path.join(toolCache, 'mr-agent', 'node', String(major));
}

/** The npm command that installs `node@<major>` into `dir` (run with the Node on PATH). */
export function olderNodeInstall(dir: string, major: number): string {
  return `npm install --prefix ${shellQuote(dir)} --no-save --no-package-lock --no-audit --no-fund node@${major}`;
}

const TOOLS = ['npm', 'npx', 'pnpm', 'yarn', 'corepack'];

function onPath(name: string, searchPath: string): string | undefined {
  for (const dir of searchPath.split(':').filter(Boolean)) {
    const file = path.join(dir, name);
    if (existsSync(file)) return file;
  }
  return undefined;
}

/** Whether a file is a script run by `node` (its first line names node). */
function nodeScript(file: string): boolean {
  try {
    const head = readFileSync(file, { encoding: 'utf8', flag: 'r' }).slice(0, 200);
    return /^#!.*\bnode\b/.test(head);
  } catch {
    return false;
  }
}

/**
 * The folder to put first on PATH: `node` is the installed older Node; the
 * package managers found on `hostPath` run on the host's own Node (npm 10
 * no longer starts on Node 14), while the scripts they start find the older
 * `node` first. Undefined when the install left no Node binary.
 */
export function olderNodeBin(dir: string, hostPath: string): string | undefined {
  const binary = path.join(dir, 'node_modules', 'node', 'bin', 'node');
  if (!existsSync(binary)) return undefined;
  const bin = path.join(dir, 'bin');
  rmSync(bin, { recursive: true, force: true });
  mkdirSync(bin, { recursive: true });
  writeFileSync(path.join(bin, 'node'), `#!/bin/sh\nexec ${shellQuote(binary)} "$@"\n`, {
    mode: 0o755,
  });
  const hostNode = onPath('node', hostPath);
  for (const tool of TOOLS) {
    const found = onPath(tool, hostPath);
    if (!found || !hostNode) continue;
    const real = realpathSync(found);
    const line = nodeScript(real)
      ? `exec ${shellQuote(realpathSync(hostNode))} ${shellQuote(real)} "$@"`
      : `exec ${shellQuote(real)} "$@"`;
    writeFileSync(path.join(bin, tool), `#!/bin/sh\n${line}\n`, { mode: 0o755 });
  }
  return bin;
}
