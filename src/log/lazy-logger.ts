import type { Logger, LoggerOptions, LogLevel } from './logger.ts';

/** winston's (npm's) levels: a line is written when its rank is at most the logger's. */
const RANK: Readonly<Record<string, number>> = {
  error: 0,
  warn: 1,
  info: 2,
  http: 3,
  verbose: 4,
  debug: 5,
  silly: 6,
};

/**
 * A logger for a short command that rarely logs (`mr-agent setup` at its
 * default level, `error`): the logging library (winston and its formats, a
 * fifth of the command's start) is loaded only when a line at the logger's
 * level is written. Lines below the level are dropped as winston would drop
 * them; the others are written by the logger `createLogger(options)` makes, in
 * the order they were logged, once it has loaded (a few milliseconds later).
 * Only what mr-agent calls is provided: error, warn, info, debug, log and child.
 */
export function createLazyLogger(options: LoggerOptions): Logger {
  return lazyLogger(options, Promise.resolve()).logger;
}

/** A logger whose lines wait, and whose library does not load, until `release()`. */
export interface HeldLogger {
  logger: Logger;
  /** Lets the lines through; resolves once those logged so far are written. */
  release(): Promise<void>;
}

/**
 * The lazy logger for a job's start: what is logged before `release()` is
 * kept, in order, and written after it, so the logging library loads after
 * the job's first progress note rather than before it. The job releases it
 * once the note is posted, when it ends and on a termination signal; the
 * lines wait at most `atMostMs`.
 */
export function createHeldLogger(
  options: LoggerOptions,
  hold: { atMostMs?: number } = {},
): HeldLogger {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  // a start that is slow (GitLab answering late, requests retried) shows its lines after all
  if (hold.atMostMs !== undefined) setTimeout(() => open(), hold.atMostMs).unref();
  const held = lazyLogger(options, gate);
  return {
    logger: held.logger,
    release: () => {
      open();
      return held.written();
    },
  };
}

function lazyLogger(
  options: LoggerOptions,
  gate: Promise<void>,
): { logger: Logger; written(): Promise<void> } {
  const threshold = RANK[options.level ?? 'info']!;
  let root: Promise<Logger> | undefined;
  let written = Promise.resolve();
  const load = () =>
    (root ??= gate
      .then(() => import('./logger.ts'))
      .then(({ createLogger }) => createLogger(options)));
  const lazy = (make: () => Promise<Logger>): Logger => {
    let mine: Promise<Logger> | undefined;
    const emit = (level: string, line: (logger: Logger) => void): Logger => {
      if ((RANK[level] ?? RANK.info!) > threshold) return self;
      const target = (mine ??= make());
      written = written
        .then(() => target.then(line))
        .catch((error: unknown) => {
          (options.stream ?? process.stderr).write(
            `mr-agent: a log line could not be written: ${error instanceof Error ? error.message : String(error)}\n`,
          );
        });
      return self;
    };
    const at =
      (level: LogLevel) =>
      (...args: unknown[]) =>
        emit(level, (logger) => (logger[level] as (...a: unknown[]) => void)(...args));
    const members = {
      error: at('error'),
      warn: at('warn'),
      info: at('info'),
      debug: at('debug'),
      log: (level: unknown, ...args: unknown[]) =>
        emit(
          typeof level === 'string'
            ? level
            : String((level as { level?: unknown } | undefined)?.level ?? 'info'),
          (logger) => (logger.log as (...a: unknown[]) => void)(level, ...args),
        ),
      child: (meta: Record<string, unknown>): Logger =>
        lazy(() => (mine ??= make()).then((logger) => logger.child(meta))),
    };
    // the members mr-agent uses of winston's Logger; the rest of its surface is never called
    const self = members as unknown as Logger;
    return self;
  };
  return { logger: lazy(load), written: () => written };
}
