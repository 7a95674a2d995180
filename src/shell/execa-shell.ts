import { execa } from 'execa';
import type { CommandRequest, CommandResult, Shell } from '../core/shell-port.ts';

const DEFAULT_MAX_OUTPUT = 10 * 1024 * 1024;

/**
 * Ends the whole process group of a command: SIGTERM, then SIGKILL after
 * `killAfterMs`. The command runs in its own group (`detached`), so children
 * of `sh -c` (test runners, servers) are stopped too and cannot keep the
 * output pipes open after a timeout.
 */
class GroupKiller {
  private killTimer: NodeJS.Timeout | undefined;
  constructor(
    private readonly pid: number | undefined,
    private readonly killAfterMs: number,
  ) {}

  private signal(name: NodeJS.Signals): void {
    if (this.pid === undefined) return;
    try {
      process.kill(-this.pid, name);
    } catch {
      // the group is already gone
    }
  }

  terminate(): void {
    if (this.killTimer) return;
    this.signal('SIGTERM');
    this.killTimer = setTimeout(() => this.signal('SIGKILL'), this.killAfterMs);
    this.killTimer.unref();
  }

  dispose(): void {
    if (this.killTimer) clearTimeout(this.killTimer);
  }
}

/** The real shell adapter: execa with no inherited environment, a timeout and a kill delay. */
export class ExecaShell implements Shell {
  async run(request: CommandRequest): Promise<CommandResult> {
    const started = Date.now();
    const subprocess = execa(request.command, {
      shell: true,
      cwd: request.cwd,
      env: request.env,
      extendEnv: false,
      reject: false,
      all: true,
      detached: true,
      maxBuffer: request.maxOutputBytes ?? DEFAULT_MAX_OUTPUT,
      input: request.input,
      stdin: request.input === undefined ? 'ignore' : 'pipe',
      stripFinalNewline: true,
    });
    const killer = new GroupKiller(subprocess.pid, request.killAfterMs ?? 5000);
    let timedOut = false;
    let cancelled = false;
    const timer =
      request.timeoutMs && request.timeoutMs > 0
        ? setTimeout(() => {
            timedOut = true;
            killer.terminate();
          }, request.timeoutMs)
        : undefined;
    // execa stops only `sh` at maxBuffer; stop the whole group as soon as the cap is passed
    const maxBytes = request.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
    let seenBytes = 0;
    const countBytes = (chunk: Buffer | string) => {
      seenBytes += chunk.length;
      if (seenBytes > maxBytes) killer.terminate();
    };
    subprocess.stdout?.on('data', countBytes);
    subprocess.stderr?.on('data', countBytes);
    const onAbort = () => {
      cancelled = true;
      killer.terminate();
    };
    if (request.signal?.aborted) onAbort();
    request.signal?.addEventListener('abort', onAbort, { once: true });
    const result = await subprocess;
    if (timer) clearTimeout(timer);
    killer.dispose();
    request.signal?.removeEventListener('abort', onAbort);
    const spawnError =
      result.exitCode === undefined && !timedOut && !cancelled && !result.signal
        ? result.originalMessage || result.shortMessage
        : undefined;
    return {
      command: request.command,
      exitCode: result.exitCode,
      stdout: String(result.stdout ?? ''),
      stderr: String(result.stderr ?? ''),
      output: String(result.all ?? ''),
      durationMs: Date.now() - started,
      timedOut,
      cancelled,
      outputTruncated: Boolean(result.isMaxBuffer),
      signal: result.signal ?? undefined,
      failed: result.failed || timedOut || cancelled,
      spawnError,
    };
  }
}
