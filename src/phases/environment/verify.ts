import type { Classification } from './classify.ts';
import {
  outputTail,
  runWithRetries,
  type CommandRecord,
  type RetryCounts,
  type RunnerDeps,
} from './run-command.ts';
import type { VerificationCheck } from '../../core/environment.ts';

/**
 * Whether a check passed: exit code 0 and stdout
 * exactly equal to `expected_output`. The shell adapter strips one final
 * newline from stdout (execa's `stripFinalNewline`); that is the only
 * normalisation — no trimming, no case folding, no other whitespace changes.
 */
export function outputMatches(stdout: string, expected: string): boolean {
  return stdout === expected;
}

function mismatch(expected: string, actual: string): Classification {
  return {
    class: 'fixable',
    kind: 'verification-mismatch',
    tool: 'verification',
    evidence: `expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual.slice(0, 200))}`,
  };
}

/** One check, run to its end (with its retries, counted in `retries`). */
async function runCheck(
  check: VerificationCheck,
  round: number,
  deps: RunnerDeps,
  retries: RetryCounts,
): Promise<CommandRecord> {
  const { result, attempts, classification } = await runWithRetries(check.command, deps, retries);
  const matched = !result.failed && outputMatches(result.stdout, check.expected_output);
  const record: CommandRecord = {
    stage: 'verification',
    round,
    command: check.command,
    exitCode: result.exitCode,
    durationMs: result.durationMs,
    outputTail: outputTail(result, deps.redactor),
    attempts,
    expected: check.expected_output,
    actual: deps.redactor ? deps.redactor.redact(result.stdout) : result.stdout,
    matched,
  };
  if (classification) record.classification = classification;
  else if (!matched) record.classification = mismatch(check.expected_output, record.actual!);
  return record;
}

type Settled = { record: CommandRecord; retries: RetryCounts } | { error: unknown };

export interface VerificationOptions {
  /**
   * Run the checks at the same time. For the checks detection proposes only:
   * each is a read-only probe of the environment (mostly one start of the
   * tool), so the round takes about as long as its slowest check. Checks a
   * model wrote may build (two Maven builds in one `target/` collide), so
   * they run one by one.
   */
  sideBySide?: boolean;
}

/**
 * Runs the checks and reports them in their order up to the first that fails
 * (its record carries the classification) and stops there. Side by side, the
 * report is the same as one by one: the checks after the failing one are
 * stopped and left out, and so are their retries. Network-type failures of a
 * check are retried like setup commands.
 */
export async function runVerification(
  checks: readonly VerificationCheck[],
  round: number,
  deps: RunnerDeps,
  retries: RetryCounts,
  options: VerificationOptions = {},
): Promise<CommandRecord[]> {
  const stop = new AbortController();
  const signal = deps.signal ? AbortSignal.any([deps.signal, stop.signal]) : stop.signal;
  const start = (check: VerificationCheck): Promise<Settled> => {
    const own: RetryCounts = { network: 0, 'server-error': 0, lock: 0 };
    return runCheck(check, round, { ...deps, signal }, own).then(
      (record) => ({ record, retries: own }),
      (error: unknown) => ({ error }),
    );
  };
  const started: Promise<Settled>[] = options.sideBySide ? checks.map(start) : [];
  const records: CommandRecord[] = [];
  try {
    for (const [index, check] of checks.entries()) {
      const settled = await (started[index] ??= start(check));
      if ('error' in settled) throw settled.error;
      const { record } = settled;
      for (const kind of Object.keys(retries) as (keyof RetryCounts)[])
        retries[kind] += settled.retries[kind];
      records.push(record);
      deps.onRecord?.(record);
      deps.logger.info('verification check finished', {
        command: record.command,
        matched: record.matched,
        exitCode: record.exitCode,
      });
      if (!record.matched) break;
    }
  } finally {
    // the checks after the one that failed (or threw) are stopped; none outlives the round
    stop.abort(new Error('an earlier check failed'));
    await Promise.all(started);
  }
  return records;
}
