import { describeError } from '../errors/catalog.ts';
import { exitCodeFor, type ExitCode } from '../errors/exit-code.ts';
import type { CliIo } from './io.ts';

/** Prints an error as one clear line plus details and hint; returns the exit code. */
export function reportError(io: CliIo, error: unknown, json = false): ExitCode {
  const { message, details } = describeError(error);
  const code = exitCodeFor(error);
  if (json) {
    io.stdout.write(`${JSON.stringify({ ok: false, error: message, details, exit_code: code })}\n`);
  } else {
    io.stderr.write(`mr-agent: ${message}\n${details.map((d) => `${d}\n`).join('')}`);
  }
  return code;
}
