import { isAgentError } from './errors.ts';

export interface ErrorDescription {
  /** One line, no stack trace. */
  message: string;
  /** Further lines: every problem, then a hint. */
  details: string[];
}

const HINTS: Record<string, string> = {
  ConfigError:
    'Fix the value shown, then run `mr-agent config check` to see the resolved configuration.',
  UsageError: 'Run `mr-agent --help` for usage.',
  ExternalServiceError:
    'Check the service URL, the token and its scopes; the request is retried on 429 and 5xx.',
  ModelBehaviorError:
    'The model did not follow the expected reply format; try a stronger model for this role.',
  CommandFailedError:
    'See the command output above; the environment may need different setup commands.',
  LimitReachedError: 'Raise the limit in `.mr-agent.yml` if the task really needs more room.',
  CancelledError: 'The run was cancelled; its final state was written to the progress note.',
};

/** Problems listed one per line; the rest are counted (a broken file can have thousands). */
export const MAX_LISTED_PROBLEMS = 20;

function listProblems(problems: readonly string[]): string[] {
  const shown = problems.slice(0, MAX_LISTED_PROBLEMS).map((p) => `  - ${p}`);
  const more = problems.length - MAX_LISTED_PROBLEMS;
  return more > 0 ? [...shown, `  … and ${more} more problem${more === 1 ? '' : 's'}`] : shown;
}

/** Turns any thrown value into the text a user sees (stderr, note, log). */
export function describeError(error: unknown): ErrorDescription {
  if (isAgentError(error)) {
    const where = error.where ? `${error.where}: ` : '';
    const problems = 'problems' in error ? (error.problems as readonly string[]) : [];
    const hint = error.hint ?? HINTS[error.name];
    return {
      message: `${where}${error.message}`,
      details: [...listProblems(problems), ...(hint ? [`hint: ${hint}`] : [])],
    };
  }
  if (error instanceof Error) {
    return {
      message: `internal error: ${error.message}`,
      details: [
        'hint: this is a bug in mr-agent; please report it with the log (run with MR_AGENT_LOG_LEVEL=debug).',
      ],
    };
  }
  return { message: `internal error: ${String(error)}`, details: [] };
}
