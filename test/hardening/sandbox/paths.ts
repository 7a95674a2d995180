import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ToolContext } from '../../../src/core/tool.ts';
import { makeTempRepo } from '../../support/temp-repo.ts';
import { toolContext } from '../../support/tool-context.ts';
import { call } from '../../tools/call.ts';

/**
 * Path attacks through the real tools (SPEC M2): every spelling of a path
 * that leads out of the repository or into `.git`, tried with every file
 * tool. An attempt escapes when a tool shows content from outside, writes or
 * removes a file outside, or changes `.git`.
 */
export const OUTSIDE_SECRET = 'OUTSIDE-SECRET-7d1f0c9a';

/** Paths that must be refused. `{out}` is the absolute outside folder, `{repo}` the repository. */
export const ESCAPING_PATHS: readonly string[] = [
  '../outside/secret.txt',
  '../../outside/secret.txt',
  'src/../../outside/secret.txt',
  './../outside/secret.txt',
  'a/b/../../../outside/secret.txt',
  '..',
  '../',
  '/etc/passwd',
  '/etc',
  '{out}/secret.txt',
  '{out}',
  '{repo}/../outside/secret.txt',
  '{repo}/src/../../outside/secret.txt',
  '//etc/passwd',
  '/../../../../etc/passwd',
  'link-file',
  'link-abs',
  'link-dir/secret.txt',
  'link-dir',
  'chain-1',
  'sub/up/outside/secret.txt',
  'dangling',
  'dangling-dir/new.txt',
  'loop-a',
  '.git',
  '.git/',
  '.git/config',
  '.git/HEAD',
  './.git/config',
  './/.git//config',
  'a/../.git/config',
  'src/../.git/hooks/pre-commit',
  '.git/../.git/config',
  '{repo}/.git/config',
  '.GIT/config',
  '.Git/HEAD',
  'sub/.git/config',
  'git-link/config',
  'git-link',
  'secret.txt\u0000.png',
  '\u0000',
  '',
  '   ',
  `${'a/'.repeat(3000)}x.txt`,
  `${'x'.repeat(300)}.txt`,
];

interface Probe {
  tool: string;
  args: (p: string) => Record<string, unknown>;
}

export const PROBES: readonly Probe[] = [
  { tool: 'read_file', args: (p) => ({ path: p }) },
  { tool: 'write_file', args: (p) => ({ path: p, content: 'PWNED\n' }) },
  { tool: 'list_files', args: (p) => ({ path: p, recursive: true }) },
  { tool: 'search_code', args: (p) => ({ query: 'SECRET', path: p }) },
  {
    tool: 'apply_patch',
    args: (p) => ({ patch: `--- /dev/null\n+++ ${p}\n@@ -0,0 +1 @@\n+PWNED\n` }),
  },
  {
    tool: 'apply_patch',
    args: (p) => ({ patch: `--- ${p}\n+++ /dev/null\n@@ -1 +0,0 @@\n-${OUTSIDE_SECRET}\n` }),
  },
  {
    tool: 'apply_patch',
    args: (p) => ({ patch: `--- a/${p}\n+++ b/src/stolen.txt\n@@ -1 +1 @@\n-x\n+y\n` }),
  },
  { tool: 'run_command', args: (p) => ({ command: 'ls; cat secret.txt', cwd: p }) },
];

export interface Sandbox {
  dir: string;
  outside: string;
  ctx: ToolContext & { logLines: string[] };
  cleanup(): Promise<void>;
}

export async function buildSandbox(): Promise<Sandbox> {
  const repo = await makeTempRepo({ 'src/app.ts': 'export const a = 1;\n', 'sub/keep.txt': 'k\n' });
  const dir = repo.dir;
  const outside = path.join(path.dirname(dir), 'outside');
  await mkdir(path.join(outside, 'dir'), { recursive: true });
  await writeFile(path.join(outside, 'secret.txt'), `${OUTSIDE_SECRET}\n`);
  await writeFile(path.join(outside, 'dir', 'more.txt'), `${OUTSIDE_SECRET}\n`);
  const link = (target: string, name: string) => symlink(target, path.join(dir, name));
  await link('../outside/secret.txt', 'link-file');
  await link(path.join(outside, 'secret.txt'), 'link-abs');
  await link('../outside', 'link-dir');
  await link('chain-2', 'chain-1');
  await link('chain-3', 'chain-2');
  await link('../outside/secret.txt', 'chain-3');
  await link('../../', 'sub/up');
  await link('../outside/not-there.txt', 'dangling');
  await link('../outside/new-dir', 'dangling-dir');
  await link('loop-b', 'loop-a');
  await link('loop-a', 'loop-b');
  await link('.git', 'git-link');
  await mkdir(path.join(dir, 'sub', '.git'));
  await writeFile(path.join(dir, 'sub', '.git', 'config'), '[core]\n');
  const ctx = await toolContext(dir, { commandTimeoutMs: 5000 });
  return { dir, outside, ctx, cleanup: repo.cleanup };
}

/** Digest of every file (path, size, content) under `root`, links not followed. */
export async function treeDigest(root: string): Promise<string> {
  const hash = createHash('sha256');
  const visit = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      hash.update(`${path.relative(root, full)}\u0000`);
      if (entry.isDirectory()) await visit(full);
      else if (entry.isFile()) hash.update(await readFile(full));
    }
  };
  await visit(root);
  return hash.digest('hex');
}

export function fill(template: string, sandbox: Sandbox): string {
  return template.replaceAll('{out}', sandbox.outside).replaceAll('{repo}', sandbox.dir);
}

/** True when the outside folder and `.git` are unchanged and no outside content was shown. */
export interface AttemptResult {
  escaped: boolean;
  why: string;
  ok: boolean;
  output: string;
}

export async function attempt(
  sandbox: Sandbox,
  probe: Probe,
  rawPath: string,
  before: { outside: string; git: string },
): Promise<AttemptResult> {
  const outcome = await call(sandbox.ctx, probe.tool, probe.args(fill(rawPath, sandbox)));
  const reasons: string[] = [];
  if (outcome.output.includes(OUTSIDE_SECRET)) reasons.push('showed outside content');
  if (/root:.*:0:0:/.test(outcome.output)) reasons.push('showed /etc/passwd');
  if (/\bmore\.txt\b/.test(outcome.output)) reasons.push('listed an outside folder');
  if ((await treeDigest(sandbox.outside)) !== before.outside) reasons.push('changed outside');
  if ((await treeDigest(path.join(sandbox.dir, '.git'))) !== before.git)
    reasons.push('changed .git');
  const planted = await stat(path.join(sandbox.outside, 'new-dir')).then(
    () => true,
    () => false,
  );
  if (planted) reasons.push('created a folder outside');
  return {
    escaped: reasons.length > 0,
    why: reasons.join(', '),
    ok: outcome.ok,
    output: outcome.output,
  };
}
