/**
 * Pushing, with one rebase when the branch moved on meanwhile. A push
 * whose answer is lost (the connection dropped, a 5xx from a proxy) may have
 * landed: `ls-remote` is asked whether the branch now points at our commit
 * before anything is sent again, so it is never pushed twice. A push is sent again only after a
 * failure that refused nothing, at most twice.
 *
 * The rebase never runs in the checkout: the checkout's files are the
 * command user's, and a `git rebase` there would write files into folders
 * that user owns (a folder swapped for a link meanwhile leads the write
 * anywhere) and read `.gitattributes` the user wrote. Each commit is
 * replayed with `git merge-tree --write-tree` (git ≥ 2.38) and
 * `commit-tree` on the git directory alone, as a bare repository: only
 * objects in the agent's own store are read and written. The rebased commit
 * is what gets pushed; HEAD, the index and the files of the checkout stay as
 * they were (delivery is the run's last step).
 */
import { CancelledError, CommandFailedError } from '../../errors/errors.ts';
import type { Redactor } from '../../log/redact.ts';
import { tail } from '../../core/shell-port.ts';
import type { Git, GitResult } from './git.ts';

const NON_FAST_FORWARD = /non-fast-forward|\[rejected\]|fetch first|stale info/i;

const AUTH_FAILED =
  /could not read Username|Authentication failed|Access denied|not allowed to push code to this project|HTTP 40[13]/i;

/** GitLab (or a server hook) said no: retrying the same push cannot help. */
const REFUSED = /\[remote rejected\]|pre-receive hook declined|remote: GitLab:|HTTP 40[0-9]/i;

/** Sends of one push after failures that refused nothing (a dropped connection, a 5xx). */
const PUSH_SENDS = 3;

type PushOutcome =
  { kind: 'landed' } | { kind: 'behind' | 'refused' | 'failed'; result: GitResult };

function pushFailure(branch: string, result: GitResult, redactor: Redactor, what: string) {
  const output = redactor.redact(tail(`${result.stderr}\n${result.stdout}`, 1500));
  const why = AUTH_FAILED.test(output)
    ? 'GitLab refused the token for git (it needs the `api` or `write_repository` scope and a Developer role)'
    : reasonOf(output);
  return new CommandFailedError(`git push`, `${what} (${branch}): ${why}`, {
    exitCode: result.exitCode,
    outputTail: output,
    where: 'delivery',
    hintKey: 'hint.deliver.patchKept',
  });
}

/** GitLab's own words (`remote: GitLab: …`), else the line that says what went wrong. */
function reasonOf(text: string): string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const gitlab = lines
    .filter((l) => /^remote:\s*GitLab:/i.test(l))
    .map((l) => l.replace(/^remote:\s*/i, ''));
  if (gitlab.length > 0) return gitlab.join(' ');
  return lines.find((l) => /rejected|denied|error|fatal/i.test(l)) ?? lines.at(-1) ?? '';
}

async function head(git: Git): Promise<string> {
  return (await git.must(['rev-parse', 'HEAD'])).trim();
}

/** True when the remote branch points at `sha` (the push landed); false when unsure. */
async function landedOnRemote(
  git: Git,
  remoteUrl: string,
  branch: string,
  sha: string,
): Promise<boolean> {
  const listed = await git.run(['ls-remote', remoteUrl, `refs/heads/${branch}`]);
  return listed.exitCode === 0 && listed.stdout.split(/\s/)[0] === sha;
}

/** The ref moved between git reading it and updating it: somebody pushed meanwhile. */
const RACED = /failed to update ref|cannot lock ref/i;

function classify(result: GitResult): PushOutcome {
  const text = `${result.stderr}\n${result.stdout}`;
  if (RACED.test(text)) return { kind: 'behind', result };
  if (REFUSED.test(text) || AUTH_FAILED.test(text)) return { kind: 'refused', result };
  if (NON_FAST_FORWARD.test(text)) return { kind: 'behind', result };
  return { kind: 'failed', result };
}

/**
 * Throws once the job is cancelled. Checked right before every `git push` is
 * spawned: a signal that arrives after the branch check, during a rebase or
 * between two sends must not let a push start.
 */
function stopIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new CancelledError('the job was cancelled before the push');
}

/** Pushes `sha` to `branch`; a failure is checked with ls-remote, a transport failure sent again. */
async function pushChecked(
  git: Git,
  remoteUrl: string,
  branch: string,
  sha: string,
  signal: AbortSignal | undefined,
): Promise<PushOutcome> {
  let outcome: PushOutcome = { kind: 'landed' };
  for (let send = 1; send <= PUSH_SENDS; send++) {
    stopIfAborted(signal);
    const result = await git.run(['push', '--porcelain', remoteUrl, `${sha}:refs/heads/${branch}`]);
    if (result.exitCode === 0) return { kind: 'landed' };
    if (await landedOnRemote(git, remoteUrl, branch, sha)) return { kind: 'landed' };
    outcome = classify(result);
    if (outcome.kind !== 'failed') return outcome;
  }
  return outcome;
}

interface Replayed {
  /** The rebased commit, or undefined when a commit did not apply cleanly. */
  commit?: string;
  /** git's answer for the commit that did not apply. */
  failure?: GitResult;
}

/** A commit's author (name, email, date) and message, read from the object itself. */
async function authorAndMessage(store: Git, commit: string) {
  const raw = await store.must(['cat-file', 'commit', commit]);
  const split = raw.indexOf('\n\n');
  const headers = split < 0 ? raw : raw.slice(0, split);
  const author = /^author (.*) <([^>]*)> (\d+ [+-]\d{4})$/m.exec(headers);
  const env: Record<string, string> = author
    ? { GIT_AUTHOR_NAME: author[1]!, GIT_AUTHOR_EMAIL: author[2]!, GIT_AUTHOR_DATE: author[3]! }
    : {};
  return { env, message: split < 0 ? '' : raw.slice(split + 2) };
}

/**
 * Replays the commits of `local` that `upstream` lacks onto `upstream`,
 * oldest first, as `git rebase` would (merge commits dropped), but in the
 * object store alone: each one is merged with `merge-tree --write-tree`
 * (their merge base is where the branch left `upstream`) and committed with
 * `commit-tree`, keeping its author and message.
 */
async function replayOnto(store: Git, upstream: string, local: string): Promise<Replayed> {
  const listed = await store.must([
    'rev-list',
    '--reverse',
    '--no-merges',
    `${upstream}..${local}`,
  ]);
  let base = upstream;
  for (const commit of listed.split('\n').filter(Boolean)) {
    // exit 1: conflicts (the files and git's messages follow the tree); above 1: an error
    const merged = await store.run(['merge-tree', '--write-tree', '--name-only', base, commit]);
    if (merged.exitCode !== 0) return { failure: merged };
    const tree = merged.stdout.split('\n')[0]!.trim();
    const { env, message } = await authorAndMessage(store, commit);
    base = (await store.must(['commit-tree', tree, '-p', base, '-F', '-'], message, env)).trim();
  }
  return { commit: base };
}

/**
 * Pushes HEAD to `branch`; on a non-fast-forward rejection fetches, rebases
 * once (in the object store alone, see above) and pushes the rebased commit.
 * Once `signal` is aborted no push is started.
 */
export async function pushWithOneRebase(
  git: Git,
  remoteUrl: string,
  branch: string,
  redactor: Redactor,
  signal?: AbortSignal,
): Promise<{ commit: string; rebased: boolean }> {
  const local = await head(git);
  const first = await pushChecked(git, remoteUrl, branch, local, signal);
  if (first.kind === 'landed') return { commit: local, rebased: false };
  if (first.kind !== 'behind')
    throw pushFailure(branch, first.result, redactor, 'the push was refused');

  await git.must(['fetch', '--quiet', remoteUrl, `refs/heads/${branch}`]);
  const store = await git.onGitDirOnly();
  const upstream = (await store.must(['rev-parse', 'FETCH_HEAD^{commit}'])).trim();
  const rebased = await replayOnto(store, upstream, local);
  if (rebased.commit === undefined)
    throw pushFailure(
      branch,
      rebased.failure!,
      redactor,
      'the branch moved on and the change does not rebase cleanly onto it',
    );
  const second = await pushChecked(git, remoteUrl, branch, rebased.commit, signal);
  if (second.kind !== 'landed')
    throw pushFailure(
      branch,
      second.result,
      redactor,
      'the push was rejected again after one rebase',
    );
  return { commit: rebased.commit, rebased: true };
}
