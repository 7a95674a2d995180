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
  /**
   * Output kept per stream (default 10 MiB): its first quarter and its last
   * three quarters; the middle is dropped as it streams past and counted
   * (`outputCut`). The command is never stopped for printing much.
   */
  maxOutputBytes?: number;
  signal?: AbortSignal;
  input?: string;
  /**
   * Run as this user and group instead of the agent's own (docs/security.md):
   * commands taken from the model or the repository, when the agent runs as
   * root. Absent: the agent's own user (git and the agent's own tools).
   */
  runAs?: { uid: number; gid: number };
}

export interface CommandResult {
  command: string;
  exitCode: number | undefined;
  /** stdout with one final newline stripped (the only normalisation). */
  stdout: string;
  stderr: string;
  /** stdout and stderr interleaved as they came (head, cut marker, tail when cut). */
  output: string;
  /** What was dropped from the middle of `output`, when anything was. */
  outputCut?: OutputCut;
  /** `output`'s kept parts, when its middle was cut (for callers that fit them to a budget). */
  outputParts?: { head: string; tail: string };
  durationMs: number;
  timedOut: boolean;
  cancelled: boolean;
  /** Some output was cut from the middle (of any stream). */
  outputTruncated: boolean;
  /** The signal that ended the process, if any. */
  signal: string | undefined;
  /** True when the command did not exit 0 for any reason. */
  failed: boolean;
  /** Set when the command could not be started at all (e.g. cwd missing). */
  spawnError: string | undefined;
}

/** Exactly what was cut from a command's output. */
export interface OutputCut {
  bytes: number;
  /** Line breaks in the cut part (whole lines, when the cut falls on line boundaries). */
  lines: number;
}

/**
 * An output with its middle cut: the head, a line standing for the cut
 * (`…[1048576 bytes (104857 lines) of output cut]…`), the tail. The marker
 * line is added text: every other character was in the output.
 */
export function joinCut(head: string, cut: OutputCut, tail: string): string {
  const line = `…[${cut.bytes} bytes (${cut.lines} lines) of output cut]…\n`;
  return `${head}${head === '' || head.endsWith('\n') ? '' : '\n'}${line}${tail}`;
}

export interface Shell {
  run(request: CommandRequest): Promise<CommandResult>;
}

/** The end of a text in at most `maxChars` characters, marked when cut. */
export function tail(text: string, maxChars = 2000): string {
  return cutText(text, maxChars, { keep: 'end' });
}
