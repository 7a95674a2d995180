import { expect } from 'chai';
import { readFile, stat, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { newTaskContext, type TaskContext } from '../../src/agent-runner/context.ts';
import { renderTaskNote, taskNotePath, writeTaskNote } from '../../src/agent-runner/task-note.ts';
import { Redactor } from '../../src/log/redact.ts';
import { createSilentLogger } from '../../src/log/logger.ts';
import { FakeClock } from '../../src/core/clock.ts';
import { tempDir } from '../workers/helpers.ts';
import { task } from './helpers.ts';

const GOLDEN = 'test/golden/agent-runner/task-note.md';

function sampleContext(): TaskContext {
  const context = newTaskContext(
    task({ id: 'TASK-123', title: 'Implement API', test: { command: 'npm test', cwd: '.' } }),
    '/repo',
    new FakeClock(Date.parse('2025-11-22T10:00:00.000Z')),
    createSilentLogger(),
  );
  context.prdText = 'The API returns 200 on GET /health.\nUse ``` fences freely.';
  context.prdSummary = 'A health endpoint.';
  context.acceptanceCriteria = [
    { id: 'AC-1', description: 'GET /health returns 200', passed: true },
    { id: 'AC-2', description: 'a test covers it', passed: false },
  ];
  context.metaCalls = [
    {
      type: 'plan_task',
      timestamp: '2025-11-22T10:00:01.000Z',
      request: { type: 'plan_task', task: { id: 'TASK-123' } },
      response: {
        type: 'plan_task',
        prd_summary: 'A health endpoint.',
        acceptance_criteria: [{ id: 'AC-1', description: 'GET /health returns 200' }],
      },
      reasks: 1,
      durationMs: 900,
    },
    {
      type: 'next_action',
      timestamp: '2025-11-22T10:00:02.000Z',
      request: { type: 'next_action', state: 'RUNNING' },
      reasks: 3,
      durationMs: 800,
      error: 'the next_action reply did not match its schema after 3 re-asks',
    },
  ];
  context.workerRuns = [
    {
      id: '0b7c1c1e-0000-4000-8000-000000000001',
      kind: 'codex-cli',
      startedAt: '2025-11-22T10:00:03.000Z',
      finishedAt: '2025-11-22T10:05:03.000Z',
      exitCode: 0,
      rawOutput: '{"type":"turn.completed"}',
      summary: 'Added the endpoint.\nFiles changed: src/health.ts',
      timedOut: false,
      cancelled: false,
      durationMs: 300000,
    },
    {
      id: '0b7c1c1e-0000-4000-8000-000000000002',
      kind: 'codex-cli',
      startedAt: '2025-11-22T10:06:00.000Z',
      finishedAt: '2025-11-22T10:36:00.000Z',
      exitCode: undefined,
      rawOutput: '',
      summary: '(the worker printed nothing)',
      error: 'timed out after 1800 s (max_run_time_sec); stopped with SIGTERM, SIGKILL after 5 s',
      signal: 'SIGTERM',
      timedOut: true,
      cancelled: false,
      durationMs: 1800000,
    },
  ];
  context.testResult = {
    command: 'npm test',
    exitCode: 1,
    summary: 'failed (exit code 1)',
    rawOutput: '1 failing',
    durationMs: 2000,
  };
  context.assessment = {
    type: 'completion_assessment',
    all_criteria_satisfied: false,
    summary: 'The endpoint exists; its test is missing.',
    details: { passed_criteria: ['AC-1'], remaining_risks: ['no test for /health'] },
  };
  for (const state of ['PLANNING', 'RUNNING', 'VALIDATING', 'FAILED'] as const)
    context.fsm.to(state, 'sample');
  context.failure = 'the codex-cli worker timed out after 1800 s';
  context.notes = ['Failed: the codex-cli worker timed out after 1800 s'];
  context.finishedAt = '2025-11-22T10:36:01.000Z';
  return context;
}

describe('agent-runner/task-note', () => {
  it('seed 002 core §5.2 Task Note sections in English (golden file; UPDATE_GOLDEN=1 rewrites it)', async () => {
    const rendered = renderTaskNote(sampleContext());

    if (process.env.UPDATE_GOLDEN === '1') {
      await mkdir(path.dirname(GOLDEN), { recursive: true });
      await writeFile(GOLDEN, rendered);
    }
    expect(rendered).to.equal(await readFile(GOLDEN, 'utf8'));
  });

  it('lists the sections in the seed order', () => {
    const headings = renderTaskNote(sampleContext())
      .split('\n')
      .filter((line) => /^#{1,3} /.test(line));

    expect(headings).to.deep.equal([
      '# Task Note - TASK-123 - Implement API',
      '## 1. Summary',
      '## 2. PRD Summary',
      '## 3. Acceptance Criteria',
      '## 4. Execution Log (Meta - Worker)',
      '### 4.1 Meta Calls',
      '### 4.2 Worker Runs',
      '## 5. Test Results',
      '## 6. Notes / Open Issues',
    ]);
  });

  it('a fence is longer than any backtick run in the text it holds', () => {
    const note = renderTaskNote(sampleContext());

    expect(note).to.contain(
      '````text\nThe API returns 200 on GET /health.\nUse ``` fences freely.\n````',
    );
  });

  it('is written redacted, with mode 0644, under the state folder', async () => {
    const dir = await tempDir('note');
    const context = sampleContext();
    context.workerRuns[0]!.rawOutput = 'token=super-secret-value';
    const redactor = new Redactor();
    redactor.add('super-secret-value');

    const file = await writeTaskNote(context, taskNotePath(dir, '.mr-agent', 'TASK/1 x'), redactor);

    expect(file).to.equal(path.join(dir, '.mr-agent', 'task-TASK_1_x.md'));
    expect(await readFile(file, 'utf8')).to.contain('token=[MASKED]');
    expect((await stat(file)).mode & 0o777).to.equal(0o644);
  });
});
