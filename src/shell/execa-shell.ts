import { execa } from 'execa';
import type { CommandRequest, CommandResult, Shell } from '../core/shell-port.ts';

const DEFAULT_MAX_OUTPUT = 10 * 1024 * 1024;

/**
 * Process groups of commands still running. When the agent's own process
 * ends (after a signal and its grace period, `process.exit`), they are
 * killed with it: a command is never left behind as an orphan.
 */
const running = new Set<number>();
let exitHookInstalled = false;

function track(pid: number | undefined): () => void {
  if (pid === undefined) return () => undefined;
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const group of running) {
        try {
          process.kill(-group, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    });
  }
  running.add(pid);
  return () => running.delete(pid);
}

/**
 * Ends the whole process group of a command: SIGTERM, then SIGKILL after
 * `killAfterMs`. The command runs in its own group (`detached`), so children
 * of `sh -c` (test runners, servers) are stopped too and cannot keep the
 * output pipes open after a timeout.
 */
class GroupKiller {
  private killTimer: NodeJS.Timeout | undefined;
  private readonly untrack: () => void;
  constructor(
    private readonly pid: number | undefined,
    private readonly killAfterMs: number,
  ) {
    this.untrack = track(pid);
  }

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
    this.killTimer = setTimeout(() => {
      this.signal('SIGKILL');
      this.untrack();
    }, this.killAfterMs);
    this.killTimer.unref();
  }

  /**
   * The command's shell has ended. A group being stopped keeps its SIGKILL
   * timer (a child may ignore SIGTERM) and stays tracked until it fires.
   */
  dispose(): void {
    if (!this.killTimer) this.untrack();
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
