import { describeError } from '../errors/catalog.ts';
import { escapeInvisible } from '../errors/visible.ts';
import { exitCodeFor, type ExitCode } from '../errors/exit-code.ts';
import type { CliIo } from './io.ts';

/** Prints an error as one clear line plus details and hint; returns the exit code. */
export function reportError(io: CliIo, error: unknown, json = false): ExitCode {
  const described = describeError(error);
  // user-controlled text (paths, values) must not reach the terminal as raw NUL, ESC or bidi codes
  const message = escapeInvisible(described.message);
  const details = described.details.map(escapeInvisible);
  const code = exitCodeFor(error);
  if (json) {
    io.stdout.write(`${JSON.stringify({ ok: false, error: message, details, exit_code: code })}\n`);
  } else {
    io.stderr.write(`mr-agent: ${message}\n${details.map((d) => `${d}\n`).join('')}`);
  }
  return code;
}
