import { randomUUID } from 'node:crypto';
import type { Logger } from '../log/logger.ts';
import type { Clock } from '../core/clock.ts';
import { commandsRefused, isolatedRequest, type CommandIsolation } from '../core/isolation.ts';
import type { CommandResult, Shell } from '../core/shell-port.ts';
import { capOutput } from './output.ts';
import type { SandboxMode, Worker, WorkerRunRecord, WorkerRunRequest } from './port.ts';
import { commandLine, type CliWorkerSpec, type ParsedWorkerOutput } from './spec.ts';

export interface CliWorkerDeps {
  shell: Shell;
  clock: Clock;
  logger: Logger;
  sandbox: SandboxMode;
  /** Delay between SIGTERM and SIGKILL after a timeout or cancel (default 5000). */
  killAfterMs?: number;
  /** Characters of combined output kept in the record (default 64 000). */
  maxRawOutputChars?: number;
  newId?: () => string;
  /**
   * Who runs the CLI: it runs the repository's code, so it is
   * a command like `run_command`. Absent: the agent's own user.
   */
  isolation?: CommandIsolation;
}

/** The record of a run refused before it started (no isolation: it would see the secrets). */
function refusedRecord(kind: string, id: string, at: string, reason: string): WorkerRunRecord {
  return {
    id,
    kind,
    startedAt: at,
    finishedAt: at,
    exitCode: undefined,
    rawOutput: '',
    summary: '',
    error: reason,
    timedOut: false,
    cancelled: false,
    durationMs: 0,
  };
}

/** Output a CLI may print before it is stopped; the record keeps a capped copy. */
const MAX_STREAM_BYTES = 50 * 1024 * 1024;

function runError(
  spec: CliWorkerSpec,
  result: CommandResult,
  parsed: ParsedWorkerOutput,
  request: WorkerRunRequest,
  killAfterMs: number,
): string | undefined {
  if (result.spawnError) return `could not start \`${spec.binary}\`: ${result.spawnError}`;
  if (result.timedOut)
    return `timed out after ${request.maxRunTimeSec} s (max_run_time_sec); stopped with SIGTERM, SIGKILL after ${killAfterMs / 1000} s`;
  if (result.cancelled) return 'cancelled';
  if (parsed.error) return `${spec.binary} reported: ${parsed.error}`;
  if (result.exitCode !== 0)
    return result.exitCode === undefined
      ? `ended by signal ${result.signal ?? 'unknown'}`
      : `exited with code ${result.exitCode}`;
  return undefined;
}

/** A worker that runs one coding CLI through the shell port. */
export function createCliWorker(spec: CliWorkerSpec, deps: CliWorkerDeps): Worker {
  const killAfterMs = deps.killAfterMs ?? 5000;
  const maxChars = deps.maxRawOutputChars ?? 64_000;
  return {
    kind: spec.kind,
    async runWorker(request: WorkerRunRequest): Promise<WorkerRunRecord> {
      const id = (deps.newId ?? randomUUID)();
      const startedAt = new Date(deps.clock.now()).toISOString();
      const refused = commandsRefused(deps.isolation);
      if (refused) return refusedRecord(spec.kind, id, startedAt, refused);
      const args = spec.args({
        prompt: request.prompt,
        repoDir: request.repoDir,
        sandbox: deps.sandbox,
        ...(request.model ? { model: request.model } : {}),
      });
      deps.logger.info('worker started', {
        component: 'worker',
        worker: spec.kind,
        runId: id,
        promptLength: request.prompt.length,
        timeoutSec: request.maxRunTimeSec,
        sandbox: deps.sandbox,
      });
      const result = await deps.shell.run(
        await isolatedRequest(deps.isolation, {
          command: commandLine(spec.binary, args),
          cwd: request.repoDir,
          env: { ...spec.env(deps.sandbox), ...request.env },
          timeoutMs: request.maxRunTimeSec * 1000,
          killAfterMs,
          maxOutputBytes: MAX_STREAM_BYTES,
          ...(request.signal ? { signal: request.signal } : {}),
          ...(spec.promptOnStdin ? { input: request.prompt } : {}),
        }),
      );
      const parsed = spec.parseOutput(result.stdout, result.stderr);
      const error = runError(spec, result, parsed, request, killAfterMs);
      const record: WorkerRunRecord = {
        id,
        kind: spec.kind,
        startedAt,
        finishedAt: new Date(deps.clock.now()).toISOString(),
        exitCode: result.exitCode,
        rawOutput: capOutput(result.output, maxChars),
        summary: parsed.summary,
        ...(error ? { error } : {}),
        ...(result.signal ? { signal: result.signal } : {}),
        timedOut: result.timedOut,
        cancelled: result.cancelled,
        durationMs: result.durationMs,
      };
      deps.logger.info('worker finished', {
        component: 'worker',
        worker: spec.kind,
        runId: id,
        exitCode: result.exitCode,
        outputLength: result.output.length,
        durationMs: result.durationMs,
        ...(error ? { error } : {}),
      });
      deps.logger.debug('worker output', { component: 'worker', runId: id, output: result.output });
      return record;
    },
  };
}
