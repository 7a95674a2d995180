import { CancelledError } from '../../errors/errors.ts';
import type { Logger } from '../../log/logger.ts';
import type { Redactor } from '../../log/redact.ts';
import type { Clock } from '../../core/clock.ts';
import { isolatedRequest, type CommandIsolation } from '../../core/isolation.ts';
import { tail, type CommandResult, type Shell } from '../../core/shell-port.ts';
import { classifyFailure, RETRY_WAITS_MS, type Classification } from './classify.ts';
import { fetchHosts } from './fetch-hosts.ts';
import type { RetryableKind } from './signatures.ts';

/** One command as it ran (after its retries), for the record and the note. */
export interface CommandRecord {
  stage: 'setup' | 'verification';
  /** 0 for the planned commands, n after the n-th regeneration. */
  round: number;
  command: string;
  exitCode: number | undefined;
  durationMs: number;
  /** Tail of stdout and stderr interleaved, secrets masked. */
  outputTail: string;
  /** Runs of this command: 1 plus its retries. */
  attempts: number;
  /** Set when the command failed (after its retries). */
  classification?: Classification;
  /** Verification only. */
  expected?: string;
  actual?: string;
  matched?: boolean;
}

export type RetryCounts = Record<RetryableKind, number>;

export interface RunnerDeps {
  shell: Shell;
  clock: Clock;
  logger: Logger;
  cwd: string;
  env: Readonly<Record<string, string>>;
  timeoutMs?: number;
  redactor?: Redactor;
  signal?: AbortSignal;
  /** Who runs the commands (the unprivileged command user, docs/security.md); absent: the agent's own user. */
  isolation?: CommandIsolation;
  /** Told of each setup command and check as it finishes (`mr-agent setup` prints them). */
  onRecord?: (record: CommandRecord) => void;
}

export interface RunOutcome {
  result: CommandResult;
  attempts: number;
  classification: Classification | undefined;
}

const OUTPUT_TAIL_CHARS = 3000;

export function outputTail(result: CommandResult, redactor?: Redactor): string {
  const text = tail(
    result.output || `${result.stdout}\n${result.stderr}`.trim(),
    OUTPUT_TAIL_CHARS,
  );
  return redactor ? redactor.redact(text) : text;
}

/**
 * Runs one command through the shell port; on a retryable failure waits
 * (injected clock) and runs it again, as the retry policy says: network
 * 5/10/20 s, server error 10 s ×3, lock 3 s ×5. Counts retries per kind in
 * `retries`. Cancellation (the signal, or the shell reporting it) throws.
 */
export async function runWithRetries(
  command: string,
  deps: RunnerDeps,
  retries: RetryCounts,
): Promise<RunOutcome> {
  const used: RetryCounts = { network: 0, 'server-error': 0, lock: 0 };
  let hosts: string[] | undefined;
  for (let attempts = 1; ; attempts += 1) {
    if (deps.signal?.aborted)
      throw new CancelledError('environment setup was cancelled', { where: command });
    const result = await deps.shell.run(
      await isolatedRequest(deps.isolation, {
        command,
        cwd: deps.cwd,
        env: deps.env,
        ...(deps.timeoutMs ? { timeoutMs: deps.timeoutMs } : {}),
        ...(deps.signal ? { signal: deps.signal } : {}),
      }),
    );
    if (result.cancelled)
      throw new CancelledError('environment setup was cancelled', { where: command });
    deps.logger.info('setup command finished', {
      command,
      exitCode: result.exitCode,
      durationMs: result.durationMs,
      attempt: attempts,
    });
    if (!result.failed) return { result, attempts, classification: undefined };
    hosts ??= fetchHosts(deps.env, deps.cwd);
    const classification = classifyFailure(result, { fetchHosts: hosts });
    if (deps.redactor) classification.evidence = deps.redactor.redact(classification.evidence);
    const kind = classification.kind as RetryableKind;
    const waits = classification.class === 'retryable' ? RETRY_WAITS_MS[kind] : [];
    const wait = waits[used[kind]];
    if (wait === undefined) return { result, attempts, classification };
    used[kind] += 1;
    retries[kind] += 1;
    deps.logger.warn('setup command failed, retrying', {
      command,
      kind,
      waitMs: wait,
      retry: used[kind],
      of: waits.length,
    });
    await deps.clock.sleep(wait, deps.signal);
  }
}
