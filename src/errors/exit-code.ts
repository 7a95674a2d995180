import { isAgentError } from './errors.ts';

/** Exit codes of the `mr-agent` command (SPEC contracts; README "Exit codes"). */
export const EXIT_SUCCESS = 0;
export const EXIT_RUN_FAILED = 1;
export const EXIT_USAGE = 2;
/**
 * The run completed, but its change is not on the branch it belongs on: it
 * was delivered elsewhere — a new branch with a merge request into that
 * branch, or a patch note — because the branch is protected, a push was
 * refused, or the branch moved on: the work is never lost. The final note says where.
 */
export const EXIT_DELIVERED_ELSEWHERE = 3;

export type ExitCode =
  | typeof EXIT_SUCCESS
  | typeof EXIT_RUN_FAILED
  | typeof EXIT_USAGE
  | typeof EXIT_DELIVERED_ELSEWHERE;

/** The one place that maps an error to an exit code. */
export function exitCodeFor(error: unknown): ExitCode {
  if (isAgentError(error) && error.blame === 'user') return EXIT_USAGE;
  return EXIT_RUN_FAILED;
}

/** The exit code of a completed run: 3 when its change went elsewhere, else 0. */
export function exitCodeForCompletion(delivery: { status: string } | undefined): ExitCode {
  const elsewhere = delivery?.status === 'pushed-elsewhere' || delivery?.status === 'patch-posted';
  return elsewhere ? EXIT_DELIVERED_ELSEWHERE : EXIT_SUCCESS;
}
