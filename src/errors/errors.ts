/**
 * Errors by blame. Every error the agent raises on purpose is one of these;
 * `exitCodeFor` (exit-code.ts) maps them to the process exit code and
 * `describeError` (catalog.ts) to the one-line message plus hint a user sees.
 */
import type { MessageKey } from '../messages/en.ts';

export type ErrorBlame = 'user' | 'service' | 'model' | 'command' | 'limit' | 'internal';

/** A hint of the message catalog: the notes show it in their language (#23). */
export type HintKey = Extract<MessageKey, `hint.${string}`>;

export interface ErrorDetails {
  /** A short hint telling the user how to fix it (English; the job log and the CLI show it). */
  hint?: string;
  /**
   * The hint as a catalog key: notes say it in their language, and
   * `hintOf` (catalog.ts) gives its English text where `hint` is not set.
   * A key, not the text, so this module loads nothing (the CLI's start path).
   */
  hintKey?: HintKey;
  /** Where the problem is (file, key path, URL, phase). */
  where?: string;
  cause?: unknown;
}

/**
 * Marks agent errors so they are recognised even when the module was loaded
 * twice (a dynamically imported run path under a CommonJS test loader).
 */
const AGENT_ERROR = Symbol.for('mr-agent.AgentError');

export abstract class AgentError extends Error {
  readonly [AGENT_ERROR] = true;
  abstract readonly blame: ErrorBlame;
  readonly hint: string | undefined;
  readonly hintKey: HintKey | undefined;
  readonly where: string | undefined;

  constructor(message: string, details: ErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.hintKey = details.hintKey;
    this.hint = details.hint;
    this.where = details.where;
  }
}

/** The user's input or configuration is wrong (exit 2). */
export class ConfigError extends AgentError {
  readonly blame = 'user' as const;
  /** Every problem found, each already phrased as `where: what was expected`. */
  readonly problems: readonly string[];

  constructor(message: string, details: ErrorDetails & { problems?: readonly string[] } = {}) {
    super(message, details);
    this.problems = details.problems ?? [];
  }
}

/** The command line was used wrongly, or a command is not available (exit 2). */
export class UsageError extends AgentError {
  readonly blame = 'user' as const;
}

/** GitLab, the LLM endpoint or another service failed or refused (exit 1). */
export class ExternalServiceError extends AgentError {
  readonly blame = 'service' as const;
  readonly service: string;
  readonly status: number | undefined;
  /** The variable holding the key or token the service refused (never its value). */
  readonly credential: string | undefined;
  /** How long the service asked to wait before the next request (Retry-After), in ms. */
  readonly retryAfterMs: number | undefined;

  constructor(
    service: string,
    message: string,
    details: ErrorDetails & {
      status?: number | undefined;
      credential?: string | undefined;
      retryAfterMs?: number | undefined;
    } = {},
  ) {
    super(message, details);
    this.service = service;
    this.status = details.status;
    this.credential = details.credential;
    this.retryAfterMs = details.retryAfterMs;
  }
}

/** The model answered with something unusable, even after re-asking (exit 1). */
export class ModelBehaviorError extends AgentError {
  readonly blame = 'model' as const;
  readonly purpose: string | undefined;

  constructor(message: string, details: ErrorDetails & { purpose?: string } = {}) {
    super(message, details);
    this.purpose = details.purpose;
  }
}

/** A command (setup, test, git) failed in a way the run cannot get past (exit 1). */
export class CommandFailedError extends AgentError {
  readonly blame = 'command' as const;
  readonly command: string;
  readonly exitCode: number | undefined;
  readonly outputTail: string;

  constructor(
    command: string,
    message: string,
    details: ErrorDetails & { exitCode?: number | undefined; outputTail?: string } = {},
  ) {
    super(message, details);
    this.command = command;
    this.exitCode = details.exitCode;
    this.outputTail = details.outputTail ?? '';
  }
}

/** A configured bound was reached: loops, revisions, replans, time (exit 1). */
export class LimitReachedError extends AgentError {
  readonly blame = 'limit' as const;
  readonly limit: string;
  readonly value: number;

  constructor(limit: string, value: number, message: string, details: ErrorDetails = {}) {
    super(message, details);
    this.limit = limit;
    this.value = value;
  }
}

/** The run was cancelled (SIGTERM, `/agent stop`). */
export class CancelledError extends AgentError {
  readonly blame = 'internal' as const;
}

export function isAgentError(error: unknown): error is AgentError {
  return (
    error instanceof AgentError ||
    (error instanceof Error && (error as unknown as Record<symbol, unknown>)[AGENT_ERROR] === true)
  );
}
