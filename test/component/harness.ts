import { execa } from 'execa';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cliBundle } from '../support/cli-bundle.ts';

/**
 * Runs the component in gitlab-ci-local (shell executor) inside a throw-away
 * git repository that includes it the way a user's project does:
 * `component: $CI_SERVER_FQDN/$CI_PROJECT_PATH/agent@$CI_COMMIT_SHA`
 * resolves to the repository's own templates/ at HEAD.
 */
const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
const GCL = path.join(REPO_ROOT, 'node_modules/gitlab-ci-local/dist/index.js');
export const REMOTE = 'https://gitlab.example.com/acme/app.git';
export const COMPONENT = '$CI_SERVER_FQDN/$CI_PROJECT_PATH/agent@$CI_COMMIT_SHA';

/**
 * gitlab-ci-local copies the project, caches and artifacts with `rsync`, even on the
 * shell executor. The tests put a stand-in written in Node first on PATH
 * (test/support/rsync/), so they need nothing beyond Node, npm and git (#21).
 */
export const RSYNC_SHIM = path.join(REPO_ROOT, 'test/support/rsync/rsync');

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', args, { cwd, stdio: 'ignore' });
}

export interface Fixture {
  dir: string;
  /** A folder on PATH holding the `mr-agent` command (this checkout's bundle). */
  binDir: string;
  remove(): void;
}

/**
 * The CLI bundle (built once per test process), laid out as the package is installed (dist/ next to
 * prompts/), and puts an `mr-agent` wrapper running it on the pinned Node.
 */
export async function installCli(root: string): Promise<string> {
  const binDir = path.join(root, 'bin');
  mkdirSync(binDir, { recursive: true });
  const bundle = path.join(root, 'package', 'dist', 'mr-agent.mjs');
  mkdirSync(path.dirname(bundle), { recursive: true });
  const built = await cliBundle();
  cpSync(built, bundle);
  // the entry loads its chunks from the folder beside it
  cpSync(path.join(path.dirname(built), 'chunks'), path.join(path.dirname(bundle), 'chunks'), {
    recursive: true,
  });
  cpSync(path.join(REPO_ROOT, 'prompts'), path.join(root, 'package', 'prompts'), {
    recursive: true,
  });
  writeFileSync(
    path.join(binDir, 'mr-agent'),
    `#!/bin/sh\nexec "${process.execPath}" "${bundle}" "$@"\n`,
    { mode: 0o755 },
  );
  return binDir;
}

/** A git repository with this checkout's templates/ and the given files, committed. */
export function createProject(root: string, files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(root, 'project-'));
  cpSync(path.join(REPO_ROOT, 'templates'), path.join(dir, 'templates'), { recursive: true });
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '-A');
  git(dir, '-c', 'user.email=ci@example.com', '-c', 'user.name=CI', 'commit', '-qm', 'fixture');
  git(dir, 'remote', 'add', 'origin', REMOTE);
  git(dir, 'update-ref', 'refs/remotes/origin/main', 'HEAD');
  git(dir, 'symbolic-ref', 'refs/remotes/origin/HEAD', 'refs/remotes/origin/main');
  return dir;
}

export function tempRoot(): { root: string; remove(): void } {
  const root = mkdtempSync(path.join(os.tmpdir(), 'mr-agent-component-'));
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}

export interface GclResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  all: string;
}

/** gitlab-ci-local's PATH: the job's commands, the rsync stand-in (before any system rsync), Node. */
export function gitlabCiLocalPath(binDir?: string): string {
  return [binDir, path.dirname(RSYNC_SHIM), path.dirname(process.execPath), process.env.PATH]
    .filter(Boolean)
    .join(path.delimiter);
}

/** Runs gitlab-ci-local on the pinned Node in `cwd`. Never throws on a non-zero exit. */
export async function gitlabCiLocal(
  cwd: string,
  args: readonly string[],
  options: { binDir?: string; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<GclResult> {
  // outside the project: an agent job commits what it finds in its checkout
  const home = `${cwd}.gcl-home`;
  mkdirSync(home, { recursive: true });
  const result = await execa(process.execPath, [GCL, ...args], {
    cwd,
    reject: false,
    all: true,
    timeout: options.timeoutMs ?? 60_000,
    env: {
      HOME: home,
      PATH: gitlabCiLocalPath(options.binDir),
      GCL_IGNORE_PREDEFINED_VARS: 'CI_PIPELINE_SOURCE,CI_SERVER_URL,CI_MERGE_REQUEST_IID',
      NO_COLOR: '1',
      FORCE_COLOR: '0',
      ...options.env,
    },
    extendEnv: false,
  });
  return {
    exitCode: result.exitCode ?? 1,
    stdout: String(result.stdout),
    stderr: String(result.stderr),
    all: String(result.all),
  };
}

export interface ListedJob {
  name: string;
  stage: string;
  when: string;
}

/**
 * `--list-json`: every job with its resolved `when` (rules evaluated, nothing
 * run). Schema validation is on unless `validate: false`.
 */
export async function listJobs(
  cwd: string,
  variables: Record<string, string> = {},
  options: { validate?: boolean } = {},
): Promise<ListedJob[]> {
  const args = [
    '--list-json',
    ...(options.validate === false ? ['--json-schema-validation=false'] : []),
  ];
  for (const [name, value] of Object.entries(variables))
    args.push('--variable', `${name}=${value}`);
  const result = await gitlabCiLocal(cwd, args);
  if (result.exitCode !== 0) throw new Error(`gitlab-ci-local --list-json failed:\n${result.all}`);
  const json = result.stdout.slice(result.stdout.indexOf('['));
  return JSON.parse(json) as ListedJob[];
}

/** The jobs that would run (when ≠ never), by name. */
export function activeJobs(jobs: readonly ListedJob[]): string[] {
  return jobs.filter((j) => j.when !== 'never').map((j) => j.name);
}
