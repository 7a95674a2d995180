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

/**
 * Runs the checks in order and stops at the first that fails (its record
 * carries the classification). Network-type failures of a check are retried
 * like setup commands.
 */
export async function runVerification(
  checks: readonly VerificationCheck[],
  round: number,
  deps: RunnerDeps,
  retries: RetryCounts,
): Promise<CommandRecord[]> {
  const records: CommandRecord[] = [];
  for (const check of checks) {
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
    records.push(record);
    deps.onRecord?.(record);
    deps.logger.info('verification check finished', {
      command: check.command,
      matched,
      exitCode: result.exitCode,
    });
    if (!matched) break;
  }
  return records;
}
