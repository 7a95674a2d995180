import type { CodeNotRun } from '../core/run-context.ts';
import type { PreparedRun } from './prepare.ts';

/**
 * Whether a CI run may run the checkout's code. A fork's
 * merge request runs none of it — no setup, lifecycle scripts, tests or
 * commands — unless `trigger.forks` is `run` *and* the pipeline is not on a
 * protected ref (`CI_COMMIT_REF_PROTECTED` is `false`; absent counts as
 * protected). The bridge starts such pipelines on the merge request's own
 * ref, which GitLab never protects; a pipeline on the default branch (the
 * bridge with `patch`, the comment webhook at the trigger URL, a manual run)
 * has the protected variables, so the fork's code does not run there.
 */
export function forkCodeNotRun(
  run: Pick<PreparedRun, 'config' | 'mergeRequest' | 'env' | 'context'>,
): CodeNotRun | undefined {
  if (!run.mergeRequest?.isFork) return undefined;
  const what = 'no environment setup, install or lifecycle scripts, tests or commands';
  if (run.config.trigger.forks === 'patch')
    return {
      notice: { kind: 'fork-patch' },
      reason:
        `this merge request comes from a fork, and the fork's code was not run (${what}), ` +
        "so it cannot reach this project's CI/CD secrets (`trigger.forks: patch`, the default); " +
        'a Maintainer can opt in with `trigger.forks: run`, which runs fork merge requests on their own ref without protected variables (docs/security.md)',
    };
  if (run.env.CI_COMMIT_REF_PROTECTED === 'false') return undefined;
  const ref = run.context.ref ? `the protected ref \`${run.context.ref}\`` : 'a protected ref';
  return {
    notice: { kind: 'fork-protected-ref', ref: run.context.ref ?? '?' },
    reason:
      `this merge request comes from a fork and \`trigger.forks\` is \`run\`, but this pipeline runs on ${ref}, ` +
      `where the project's protected CI/CD variables are, so the fork's code was not run (${what}); ` +
      'start it through the webhook bridge, which runs fork merge requests on `refs/merge-requests/<iid>/head` (docs/security.md)',
  };
}
