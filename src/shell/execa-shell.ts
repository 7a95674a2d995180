import { execa } from 'execa';
import type { CommandRequest, CommandResult, Shell } from './port.ts';

const DEFAULT_MAX_OUTPUT = 10 * 1024 * 1024;

/** The real shell adapter: execa with no inherited environment, a timeout and a kill delay. */
export class ExecaShell implements Shell {
  async run(request: CommandRequest): Promise<CommandResult> {
    const started = Date.now();
    const result = await execa(request.command, {
      shell: true,
      cwd: request.cwd,
      env: request.env,
      extendEnv: false,
      reject: false,
      all: true,
      timeout: request.timeoutMs && request.timeoutMs > 0 ? request.timeoutMs : undefined,
      forceKillAfterDelay: request.killAfterMs ?? 5000,
      maxBuffer: request.maxOutputBytes ?? DEFAULT_MAX_OUTPUT,
      cancelSignal: request.signal,
      input: request.input,
      stdin: request.input === undefined ? 'ignore' : 'pipe',
      stripFinalNewline: true,
    });
    const spawnError =
      result.exitCode === undefined && !result.timedOut && !result.isCanceled && !result.signal
        ? result.originalMessage || result.shortMessage
        : undefined;
    return {
      command: request.command,
      exitCode: result.exitCode,
      stdout: String(result.stdout ?? ''),
      stderr: String(result.stderr ?? ''),
      output: String(result.all ?? ''),
      durationMs: Date.now() - started,
      timedOut: Boolean(result.timedOut),
      cancelled: Boolean(result.isCanceled),
      outputTruncated: Boolean(result.isMaxBuffer),
      signal: result.signal ?? undefined,
      failed: result.failed,
      spawnError,
    };
  }
}
