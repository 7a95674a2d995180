import { Writable } from 'node:stream';
import winston from 'winston';
import type { LogFormat } from './log-format.ts';
import type { Redactor } from './redact.ts';

export type Logger = winston.Logger;
export type LogLevel = 'error' | 'warn' | 'info' | 'debug';
export type { LogFormat } from './log-format.ts';

export interface LoggerOptions {
  level?: LogLevel;
  format?: LogFormat;
  traceId: string;
  redactor: Redactor;
  /** Where lines go; defaults to stderr so stdout stays free for command output. */
  stream?: NodeJS.WritableStream;
  color?: boolean;
}

const MESSAGE = Symbol.for('message');

/** The last format step: masks secrets in the finished line, whatever its shape. */
const redactLine = winston.format((info, opts: unknown) => {
  const { redactor } = opts as { redactor: Redactor };
  const line = (info as unknown as Record<symbol, unknown>)[MESSAGE];
  if (typeof line === 'string') {
    (info as unknown as Record<symbol, unknown>)[MESSAGE] = redactor.redact(line);
  }
  return info;
});

function textFormat(color: boolean): winston.Logform.Format {
  return winston.format.printf((info) => {
    const { level, message, timestamp, trace_id: _t, component, ...meta } = info;
    const rest = Object.keys(meta).length > 0 ? ` ${JSON.stringify(meta)}` : '';
    const where = component ? ` [${String(component)}]` : '';
    const lvl = color ? colorize(level) : level.padEnd(5);
    return `${String(timestamp)} ${lvl}${where} ${String(message)}${rest}`;
  });
}

function colorize(level: string): string {
  const codes: Record<string, number> = { error: 31, warn: 33, info: 36, debug: 90 };
  return `\u001b[${codes[level] ?? 0}m${level.padEnd(5)}\u001b[0m`;
}

export function createLogger(options: LoggerOptions): Logger {
  const format = options.format ?? 'text';
  const stream = options.stream ?? process.stderr;
  return winston.createLogger({
    level: options.level ?? 'info',
    defaultMeta: { trace_id: options.traceId },
    format: winston.format.combine(
      winston.format.timestamp(),
      winston.format.errors({ stack: false }),
      format === 'json' ? winston.format.json() : textFormat(options.color ?? false),
      redactLine({ redactor: options.redactor }),
    ),
    transports: [new winston.transports.Stream({ stream })],
  });
}

// in modules of their own, so a command can make them without loading winston (lazy-logger.ts)
export { newTraceId } from './trace-id.ts';
export { resolveLogFormat } from './log-format.ts';
export { textSink } from './text-sink.ts';

/** A logger that keeps its lines in memory (tests, `--json` capture). */
export function createMemoryLogger(
  options: Omit<LoggerOptions, 'stream' | 'traceId'> & { traceId?: string },
): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const logger = createLogger({ ...options, traceId: options.traceId ?? 'test', stream });
  return { logger, lines };
}

/** A logger that drops everything (library defaults). */
export function createSilentLogger(): Logger {
  return winston.createLogger({ silent: true, transports: [new winston.transports.Console()] });
}
