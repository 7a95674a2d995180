/**
 * Pushing (H3), with one rebase when the branch moved on meanwhile. A push
 * whose answer is lost (the connection dropped, a 5xx from a proxy) may have
 * landed: `ls-remote` is asked whether the branch now points at our commit
 * before anything is sent again (issue 18). A push is sent again only after a
 * failure that refused nothing, at most twice.
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

/** Pushes HEAD to `branch`; a failure is checked with ls-remote, a transport failure sent again. */
async function pushChecked(
  git: Git,
  remoteUrl: string,
  branch: string,
  signal: AbortSignal | undefined,
): Promise<PushOutcome> {
  const sha = await head(git);
  let outcome: PushOutcome = { kind: 'landed' };
  for (let send = 1; send <= PUSH_SENDS; send++) {
    stopIfAborted(signal);
    const result = await git.run(['push', '--porcelain', remoteUrl, `HEAD:refs/heads/${branch}`]);
    if (result.exitCode === 0) return { kind: 'landed' };
    if (await landedOnRemote(git, remoteUrl, branch, sha)) return { kind: 'landed' };
    outcome = classify(result);
    if (outcome.kind !== 'failed') return outcome;
  }
  return outcome;
}

/**
 * Pushes HEAD to `branch`; on a non-fast-forward rejection fetches, rebases
 * once and pushes again. Once `signal` is aborted no push is started.
 */
export async function pushWithOneRebase(
  git: Git,
  remoteUrl: string,
  branch: string,
  redactor: Redactor,
  signal?: AbortSignal,
): Promise<{ commit: string; rebased: boolean }> {
  const first = await pushChecked(git, remoteUrl, branch, signal);
  if (first.kind === 'landed') return { commit: await head(git), rebased: false };
  if (first.kind !== 'behind')
    throw pushFailure(branch, first.result, redactor, 'the push was refused');

  await git.must(['fetch', '--quiet', remoteUrl, `refs/heads/${branch}`]);
  const rebase = await git.run(['rebase', 'FETCH_HEAD']);
  if (rebase.exitCode !== 0) {
    await git.run(['rebase', '--abort']);
    throw pushFailure(
      branch,
      rebase,
      redactor,
      'the branch moved on and the change does not rebase cleanly onto it',
    );
  }
  const second = await pushChecked(git, remoteUrl, branch, signal);
  if (second.kind !== 'landed')
    throw pushFailure(
      branch,
      second.result,
      redactor,
      'the push was rejected again after one rebase',
    );
  return { commit: await head(git), rebased: true };
}
