import { isAgentError } from './errors.ts';

/** Exit codes of the `mr-agent` command (SPEC contracts). */
export const EXIT_SUCCESS = 0;
export const EXIT_RUN_FAILED = 1;
export const EXIT_USAGE = 2;

export type ExitCode = typeof EXIT_SUCCESS | typeof EXIT_RUN_FAILED | typeof EXIT_USAGE;

/** The one place that maps an error to an exit code. */
export function exitCodeFor(error: unknown): ExitCode {
  if (isAgentError(error) && error.blame === 'user') return EXIT_USAGE;
  return EXIT_RUN_FAILED;
}
