import { expect } from 'chai';
import {
  buildRunResult,
  RunResultFile,
  type RunResultInput,
} from '../../src/report/result-file.ts';

const T0 = Date.parse('2024-11-28T10:00:00Z');

function input(overrides: Partial<RunResultInput> = {}): RunResultInput {
  return {
    taskId: 'TASK-1',
    status: 'complete',
    exitCode: 0,
    summary: 'done',
    startedAt: T0,
    finishedAt: T0 + 60_000,
    validation: [],
    usage: { byRole: {} },
    ...overrides,
  };
}

describe('seed 002 §16.2 result.json: status succeeded|failed, validation {overall, commands}', () => {
  it('seed 002 §16.2 a complete run is `succeeded`; the detailed final state stays in `state`', () => {
    const result = buildRunResult(input());
    expect(result).to.include({ status: 'succeeded', state: 'complete', task_id: 'TASK-1' });
  });

  for (const state of [
    'failed',
    'cancelled',
    'interrupted',
    'awaiting_answer',
    'needs_human',
  ] as const) {
    it(`seed 002 §16.2 a run that ended ${state} is \`failed\``, () => {
      const result = buildRunResult(input({ status: state, exitCode: 1 }));
      expect(result).to.include({ status: 'failed', state });
    });
  }

  it('seed 002 §16.2 validation.overall is `unknown` and commands empty when nothing was validated', () => {
    expect(buildRunResult(input()).validation).to.deep.equal({ overall: 'unknown', commands: [] });
  });

  it('seed 002 §16.2 validation.commands lists {command, exit_code, duration_ms} of every run, in order', () => {
    const result = buildRunResult(
      input({
        validation: [
          { command: 'npm test', exitCode: 1, durationMs: 1200.4 },
          { command: 'npm test', exitCode: 0, durationMs: 900 },
        ],
      }),
    );
    expect(result.validation.commands).to.deep.equal([
      { command: 'npm test', exit_code: 1, duration_ms: 1200, timed_out: false, passed: false },
      { command: 'npm test', exit_code: 0, duration_ms: 900, timed_out: false, passed: true },
    ]);
    // the last run of each command decides: the failure was fixed in a later loop
    expect(result.validation.overall).to.equal('passed');
  });

  it('seed 002 §16.2 validation.overall is `failed` when the last run of any command failed or timed out', () => {
    const failed = buildRunResult(
      input({
        validation: [
          { command: 'npm test', exitCode: 0, durationMs: 10 },
          { command: 'npm run lint', exitCode: null, durationMs: 600_000, timedOut: true },
        ],
      }),
    );
    expect(failed.validation.overall).to.equal('failed');
    const regressed = buildRunResult(
      input({
        validation: [
          { command: 'npm test', exitCode: 0, durationMs: 10 },
          { command: 'npm test', exitCode: 2, durationMs: 10 },
        ],
      }),
    );
    expect(regressed.validation.overall).to.equal('failed');
  });

  it('seed 002 §16.2 the old shape (`status: complete`, a plain validation list) is refused', () => {
    const old = {
      ...buildRunResult(input()),
      status: 'complete',
      validation: [],
    };
    expect(RunResultFile.safeParse(old).success).to.equal(false);
  });
});
