import { CommandFailedError } from '../errors/errors.ts';
import { tail, type Shell } from '../core/shell-port.ts';
import { Git, isLocalRemote } from '../shell/git.ts';

/**
 * Puts the job's checkout on the merge request's head when the pipeline runs
 * elsewhere: a comment webhook at the trigger URL always runs on the
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

/** Git for the checkout: the job's one git module, `file` only for a local `origin`. */
async function checkoutGit(
  shell: Shell,
  projectDir: string,
  env: Readonly<Record<string, string>>,
): Promise<(args: string[]) => Promise<void>> {
  const options = { shell, cwd: projectDir, hostEnv: env, timeoutMs: 120_000 };
  const origin = await new Git(options).run(['remote', 'get-url', 'origin']);
  const git = new Git({
    ...options,
    allowFileProtocol: origin.exitCode === 0 && isLocalRemote(origin.stdout.trim()),
  });
  return async (args) => {
    const result = await git.run(args);
    if (result.exitCode === 0) return;
    const command = `git ${args.join(' ')}`;
    throw new CommandFailedError(command, `git could not check out the merge request`, {
      exitCode: result.exitCode,
      outputTail: tail(`${result.stdout}\n${result.stderr}`.trim(), 1000),
      where: projectDir,
      hint: 'the job token must be able to fetch this project; the merge request head is refs/merge-requests/<iid>/head.',
    });
  };
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
  const git = await checkoutGit(shell, input.projectDir, input.env);
  await git([
    'fetch',
    '--quiet',
    '--no-tags',
    'origin',
    `+refs/merge-requests/${mr.iid}/head:${local}`,
  ]);
  await git(['checkout', '--quiet', '-B', mr.sourceBranch, local]);
  return { changed: true, branch: mr.sourceBranch };
}
