/** The shell port: how the agent runs a command. One real adapter (execa.ts). */
import { cutText } from './text.ts';
export interface CommandRequest {
  /** A shell command line (run through `sh -c`). */
  command: string;
  cwd: string;
  /** The complete environment of the child; nothing is inherited. */
  env: Readonly<Record<string, string>>;
  timeoutMs?: number;
  /** After a timeout or cancel: SIGTERM, then SIGKILL after this many ms (default 5000). */
  killAfterMs?: number;
  /** Output kept per stream; beyond it the command is stopped and `outputTruncated` set. */
  maxOutputBytes?: number;
  signal?: AbortSignal;
  input?: string;
}

export interface CommandResult {
  command: string;
  exitCode: number | undefined;
  /** stdout with one final newline stripped (the only normalisation). */
  stdout: string;
  stderr: string;
  /** stdout and stderr interleaved as they came. */
  output: string;
  durationMs: number;
  timedOut: boolean;
  cancelled: boolean;
  outputTruncated: boolean;
  /** The signal that ended the process, if any. */
  signal: string | undefined;
  /** True when the command did not exit 0 for any reason. */
  failed: boolean;
  /** Set when the command could not be started at all (e.g. cwd missing). */
  spawnError: string | undefined;
}

export interface Shell {
  run(request: CommandRequest): Promise<CommandResult>;
}

/** The end of a text in at most `maxChars` characters, marked when cut. */
export function tail(text: string, maxChars = 2000): string {
  return cutText(text, maxChars, { keep: 'end' });
}
