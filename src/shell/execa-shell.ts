import type { Readable } from 'node:stream';
import { execa } from 'execa';
import type { CommandRequest, CommandResult, Shell } from '../core/shell-port.ts';
import { HeadTailBuffer } from './head-tail-buffer.ts';

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

/** The three outputs of a command, each in a bounded head-and-tail buffer. */
class Outputs {
  readonly stdout: HeadTailBuffer;
  readonly stderr: HeadTailBuffer;
  readonly all: HeadTailBuffer;

  constructor(limit: number) {
    this.stdout = new HeadTailBuffer(limit);
    this.stderr = new HeadTailBuffer(limit);
    this.all = new HeadTailBuffer(limit);
  }

  /** Reads both pipes as they stream (execa keeps nothing: `buffer: false`). */
  listen(stdout: Readable | null, stderr: Readable | null): Promise<unknown> {
    const read = (stream: Readable | null, into: HeadTailBuffer) =>
      stream
        ? new Promise<void>((resolve) => {
            stream.on('data', (chunk: Buffer) => {
              into.push(chunk);
              this.all.push(chunk);
            });
            stream.on('end', resolve);
            stream.on('close', resolve);
            stream.on('error', () => resolve());
          })
        : Promise.resolve();
    return Promise.all([read(stdout, this.stdout), read(stderr, this.stderr)]);
  }
}

/**
 * The real shell adapter: execa with no inherited environment, a timeout and
 * a kill delay. Output is streamed through bounded head-and-tail buffers
 * (issue 18): however much a command prints, memory stays flat and the
 * command runs to its end or its time limit.
 */
export class ExecaShell implements Shell {
  async run(request: CommandRequest): Promise<CommandResult> {
    const started = Date.now();
    const subprocess = execa(request.command, {
      shell: true,
      cwd: request.cwd,
      env: request.env,
      extendEnv: false,
      reject: false,
      buffer: false,
      detached: true,
      input: request.input,
      stdin: request.input === undefined ? 'ignore' : 'pipe',
    });
    const outputs = new Outputs(request.maxOutputBytes ?? DEFAULT_MAX_OUTPUT);
    const reading = outputs.listen(subprocess.stdout, subprocess.stderr);
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
    const onAbort = () => {
      cancelled = true;
      killer.terminate();
    };
    if (request.signal?.aborted) onAbort();
    request.signal?.addEventListener('abort', onAbort, { once: true });
    const result = await subprocess;
    await reading;
    if (timer) clearTimeout(timer);
    killer.dispose();
    request.signal?.removeEventListener('abort', onAbort);
    const spawnError =
      result.exitCode === undefined && !timedOut && !cancelled && !result.signal
        ? result.originalMessage || result.shortMessage
        : undefined;
    const all = outputs.all.result();
    const stdout = outputs.stdout.result();
    const stderr = outputs.stderr.result();
    return {
      command: request.command,
      exitCode: result.exitCode,
      stdout: stdout.text,
      stderr: stderr.text,
      output: all.text,
      ...(all.parts
        ? {
            outputCut: all.parts.cut,
            outputParts: { head: all.parts.head, tail: all.parts.tail },
          }
        : {}),
      durationMs: Date.now() - started,
      timedOut,
      cancelled,
      outputTruncated: Boolean(all.parts ?? stdout.parts ?? stderr.parts),
      signal: result.signal ?? undefined,
      failed: result.failed || timedOut || cancelled,
      spawnError,
    };
  }
}
