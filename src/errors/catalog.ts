import { t } from '../messages/catalog.ts';
import { isAgentError, type HintKey } from './errors.ts';

export interface ErrorDescription {
  /** One line, no stack trace. */
  message: string;
  /** Further lines: every problem, then a hint. */
  details: string[];
}

/** The error classes with a hint of their own in the message catalog (`hint.class.<name>`). */
export const HINTED_CLASSES = [
  'ConfigError',
  'UsageError',
  'ExternalServiceError',
  'ModelBehaviorError',
  'CommandFailedError',
  'LimitReachedError',
  'CancelledError',
] as const;
type HintedClass = (typeof HINTED_CLASSES)[number];

/** The catalog key of an error class's own hint, when it has one. */
export function classHintKey(name: string): HintKey | undefined {
  return (HINTED_CLASSES as readonly string[]).includes(name)
    ? (`hint.class.${name as HintedClass}` as const)
    : undefined;
}

/** Problems listed one per line; the rest are counted (a broken file can have thousands). */
export const MAX_LISTED_PROBLEMS = 20;

function listProblems(problems: readonly string[]): string[] {
  const shown = problems.slice(0, MAX_LISTED_PROBLEMS).map((p) => `  - ${p}`);
  const more = problems.length - MAX_LISTED_PROBLEMS;
  return more > 0 ? [...shown, `  … and ${more} more problem${more === 1 ? '' : 's'}`] : shown;
}

/** An error's hint in English: its own, else its catalog key's, else its class's. */
export function hintOf(error: unknown): string | undefined {
  if (!isAgentError(error)) return undefined;
  if (error.hint) return error.hint;
  if (error.hintKey) return t('en', error.hintKey);
  const classHint = classHintKey(error.name);
  return classHint ? t('en', classHint) : undefined;
}

/** Turns any thrown value into the text a user sees (stderr, note, log). */
export function describeError(error: unknown): ErrorDescription {
  if (isAgentError(error)) {
    const where = error.where ? `${error.where}: ` : '';
    const problems = 'problems' in error ? (error.problems as readonly string[]) : [];
    const hint = hintOf(error);
    return {
      message: `${where}${error.message}`,
      details: [...listProblems(problems), ...(hint ? [`hint: ${hint}`] : [])],
    };
  }
  if (error instanceof Error) {
    return {
      message: `internal error: ${error.message}`,
      details: [`hint: ${t('en', 'hint.internal')}`],
    };
  }
  return { message: `internal error: ${String(error)}`, details: [] };
}
