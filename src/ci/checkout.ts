import { CommandFailedError } from '../errors/errors.ts';
import { tail, type Shell } from '../core/shell-port.ts';

/**
 * Puts the job's checkout on the merge request's head when the pipeline runs
 * elsewhere: a comment webhook at the trigger URL (A3) always runs on the
 * branch named in the URL, and the bridge runs fork merge requests on the
 * default branch. GitLab keeps every merge request's head, forks included,
 * at `refs/merge-requests/<iid>/head` of the target project.
 */
export interface MergeRequestHead {
  iid: number;
  sourceBranch: string;
  isFork: boolean;
}

export interface CheckoutResult {
  changed: boolean;
  branch: string;
}

export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

async function git(
  shell: Shell,
  projectDir: string,
  env: Readonly<Record<string, string>>,
  args: string,
): Promise<void> {
  const command = `git ${args}`;
  const result = await shell.run({ command, cwd: projectDir, env, timeoutMs: 120_000 });
  if (result.failed) {
    throw new CommandFailedError(command, `git could not check out the merge request`, {
      exitCode: result.exitCode,
      outputTail: tail(result.output, 1000),
      where: projectDir,
      hint: 'the job token must be able to fetch this project; the merge request head is refs/merge-requests/<iid>/head.',
    });
  }
}

export async function checkoutMergeRequest(
  shell: Shell,
  input: {
    projectDir: string;
    /** CI_COMMIT_REF_NAME: the branch the pipeline runs on. */
    currentRef: string | undefined;
    mergeRequest: MergeRequestHead;
    env: Readonly<Record<string, string>>;
  },
): Promise<CheckoutResult> {
  const { mergeRequest: mr } = input;
  if (!mr.isFork && input.currentRef === mr.sourceBranch) {
    return { changed: false, branch: mr.sourceBranch };
  }
  const local = `refs/mr-agent/merge-requests/${mr.iid}`;
  const gitEnv = { GIT_TERMINAL_PROMPT: '0', ...input.env };
  await git(
    shell,
    input.projectDir,
    gitEnv,
    `fetch --quiet --no-tags origin +refs/merge-requests/${mr.iid}/head:${local}`,
  );
  await git(
    shell,
    input.projectDir,
    gitEnv,
    `checkout --quiet -B ${shellQuote(mr.sourceBranch)} ${local}`,
  );
  return { changed: true, branch: mr.sourceBranch };
}
