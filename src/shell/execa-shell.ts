import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { execa } from 'execa';
import type { CommandRequest, CommandResult, Shell } from '../core/shell-port.ts';
import { HeadTailBuffer } from './head-tail-buffer.ts';
import { openOutputChannels } from './output-channel.ts';

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

/** How a command's output reaches the buffers. */
interface Wiring {
  stdout: Socket | 'pipe';
  stderr: Socket | 'pipe';
  /** Called once the command is spawned. */
  started(sub: { stdout: Readable | null; stderr: Readable | null }): void;
  /** Resolves when all output has been read; called once the command exited. */
  finished(): Promise<unknown>;
}

/** The three outputs of a command, each in a bounded head-and-tail buffer. */
class Outputs {
  private readonly streams: HeadTailBuffer[];
  readonly all: HeadTailBuffer;

  constructor(limit: number) {
    this.streams = [new HeadTailBuffer(limit), new HeadTailBuffer(limit)];
    this.all = new HeadTailBuffer(limit);
  }

  get stdout(): HeadTailBuffer {
    return this.streams[0]!;
  }

  get stderr(): HeadTailBuffer {
    return this.streams[1]!;
  }

  take(stream: number, bytes: Buffer): void {
    this.streams[stream]!.push(bytes);
    this.all.push(bytes);
  }

  /** Sockets read into one reused buffer (output-channel.ts); plain pipes when they cannot be made. */
  async wire(): Promise<Wiring> {
    try {
      const channels = await openOutputChannels(2, (stream, bytes) => this.take(stream, bytes));
      const [stdout, stderr] = channels.childEnds as [Socket, Socket];
      return {
        stdout,
        stderr,
        started: () => undefined,
        // this process's copies of the command's ends are closed only now: execa
        // watches them while the command runs and calls an early close a failure
        finished: () => (channels.release(), channels.finished),
      };
    } catch {
      let reading: Promise<unknown> = Promise.resolve();
      return {
        stdout: 'pipe',
        stderr: 'pipe',
        started: (sub) => (reading = this.listen(sub.stdout, sub.stderr)),
        finished: () => reading,
      };
    }
  }

  /** Reads both pipes as they stream (execa keeps nothing: `buffer: false`). */
  listen(stdout: Readable | null, stderr: Readable | null): Promise<unknown> {
    const read = (stream: Readable | null, index: number) =>
      stream
        ? new Promise<void>((resolve) => {
            stream.on('data', (chunk: Buffer) => this.take(index, chunk));
            stream.on('end', resolve);
            stream.on('close', resolve);
            stream.on('error', () => resolve());
          })
        : Promise.resolve();
    return Promise.all([read(stdout, 0), read(stderr, 1)]);
  }
}

/**
 * The real shell adapter: execa with no inherited environment, a timeout and
 * a kill delay. Output is streamed through bounded head-and-tail buffers:
 * however much a command prints, memory stays flat and the
 * command runs to its end or its time limit.
 */
export class ExecaShell implements Shell {
  async run(request: CommandRequest): Promise<CommandResult> {
    const started = Date.now();
    const outputs = new Outputs(request.maxOutputBytes ?? DEFAULT_MAX_OUTPUT);
    const wiring = await outputs.wire();
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
      stdout: wiring.stdout,
      stderr: wiring.stderr,
      ...(request.runAs ? { uid: request.runAs.uid, gid: request.runAs.gid } : {}),
    });
    wiring.started(subprocess);
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
    await wiring.finished();
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
