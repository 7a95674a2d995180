/** Pushing, with one rebase when the branch moved on meanwhile (H3). */
import { CommandFailedError } from '../../errors/errors.ts';
import type { Redactor } from '../../log/redact.ts';
import { tail } from '../../core/shell-port.ts';
import type { Git, GitResult } from './git.ts';

const NON_FAST_FORWARD =
  /non-fast-forward|\[rejected\]|fetch first|stale info|failed to update ref/i;

const AUTH_FAILED =
  /could not read Username|Authentication failed|Access denied|not allowed to push|HTTP 40[13]/i;

function pushFailure(branch: string, result: GitResult, redactor: Redactor, what: string) {
  const output = redactor.redact(tail(result.stderr, 1500));
  const why = AUTH_FAILED.test(output)
    ? 'GitLab refused the token for git (it needs the `api` or `write_repository` scope and a Developer role)'
    : lastLine(output);
  return new CommandFailedError(`git push`, `${what} (${branch}): ${why}`, {
    exitCode: result.exitCode,
    outputTail: output,
    where: 'delivery',
    hint: 'The change is kept in the job artifacts; rebase or merge it by hand and push again.',
  });
}

function lastLine(text: string): string {
  return (
    text
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .find((l) => /rejected|denied|error|fatal/i.test(l)) ??
    text.trim().split('\n').at(-1) ??
    ''
  );
}

/** Pushes HEAD to `branch`; on a non-fast-forward rejection fetches, rebases once and pushes again. */
export async function pushWithOneRebase(
  git: Git,
  remoteUrl: string,
  branch: string,
  redactor: Redactor,
): Promise<{ commit: string; rebased: boolean }> {
  const refspec = `HEAD:refs/heads/${branch}`;
  const first = await git.run(['push', '--porcelain', remoteUrl, refspec]);
  if (first.exitCode === 0) return { commit: await head(git), rebased: false };
  if (!NON_FAST_FORWARD.test(first.stderr + first.stdout))
    throw pushFailure(branch, first, redactor, 'the push was refused');

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
  const second = await git.run(['push', '--porcelain', remoteUrl, refspec]);
  if (second.exitCode !== 0)
    throw pushFailure(branch, second, redactor, 'the push was rejected again after one rebase');
  return { commit: await head(git), rebased: true };
}

async function head(git: Git): Promise<string> {
  return (await git.must(['rev-parse', 'HEAD'])).trim();
}
