import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { createMemoryLogger } from '../../src/log/logger.ts';
import { Redactor } from '../../src/log/redact.ts';
import {
  buildRunResult,
  readResultFile,
  RunResultFile,
  writeResultFile,
} from '../../src/report/result-file.ts';
import type { TaskNoteData } from '../../src/report/task-note.ts';
import { renderTaskNote, taskNotePath, writeTaskNote } from '../../src/report/task-note.ts';
import { expectGolden } from '../support/golden.ts';
import { sec, T0 } from './progress/scenario.ts';

const note: TaskNoteData = {
  id: 'TASK-123',
  title: 'Implement API',
  startedAt: T0,
  finishedAt: sec(335),
  state: 'COMPLETE',
  summary: 'Added the /health endpoint and its tests.',
  prdSummary: 'A health endpoint for the load balancer.',
  prdText: 'GET /health returns 200 and {"status":"ok"}.\n```\ninjected fence\n```',
  acceptanceCriteria: [
    { id: 'AC-1', description: 'GET /health returns 200', passed: true },
    { id: 'AC-2', description: 'The response is JSON', passed: false },
  ],
  metaCalls: [
    {
      type: 'plan_task',
      timestamp: sec(5),
      request: { task: 'Implement API' },
      response: { acceptance_criteria: ['AC-1'] },
    },
  ],
  workerRuns: [
    {
      id: 'run-1',
      startedAt: sec(30),
      finishedAt: sec(90),
      exitCode: 0,
      rawOutput: 'edited src/app.ts\nok',
    },
  ],
  testResult: {
    command: 'npm test',
    exitCode: 0,
    summary: '12 passing',
    rawOutput: '12 passing (40ms)',
  },
  notes: 'AC-2 needs a content-type header.',
};

describe('report/task-note and result file', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'mr-agent-note-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('H4 renders the Task Note with the seed 002 §5.2 sections (golden)', async () => {
    await expectGolden('report/task-note.md', renderTaskNote(note));
  });

  it('H4 says when tests were not run and keeps the tail of long output', () => {
    const body = renderTaskNote(
      {
        ...note,
        testResult: undefined,
        workerRuns: [{ ...note.workerRuns[0]!, rawOutput: `${'a'.repeat(50)}END` }],
      },
      { maxOutputChars: 40 },
    );
    expect(body).to.include('## 5. Test Results\n\nTests were not run automatically.');
    expect(body).to.include(`…(34 characters cut)\n${'a'.repeat(16)}END`);
  });

  it('H4 L1 writes .mr-agent/task-<id>.md with secrets masked', async () => {
    const redactor = new Redactor();
    redactor.add('sk-live-abcdef123456');
    const file = await writeTaskNote(dir, { ...note, notes: 'key sk-live-abcdef123456' }, redactor);
    expect(file).to.equal(taskNotePath(dir, 'TASK-123'));
    expect(path.basename(file)).to.equal('task-TASK-123.md');
    const text = await readFile(file, 'utf8');
    expect(text).to.include('key [MASKED]');
    expect(text).to.not.include('sk-live-abcdef123456');
  });

  it('L3 writes result.json that validates against its schema (golden)', async () => {
    const result = buildRunResult({
      taskId: 'TASK-123',
      status: 'complete',
      exitCode: 0,
      summary: 'done',
      startedAt: T0,
      finishedAt: sec(335),
      validation: [
        { command: 'npm test', exitCode: 0, durationMs: 1234.4 },
        { command: 'npm run lint', exitCode: null, durationMs: 600_000, timedOut: true },
      ],
      usage: {
        byRole: {
          planning: { promptTokens: 100, completionTokens: 20, calls: 1 },
          execution: { promptTokens: 300, completionTokens: 50, calls: 3 },
        },
        costUsd: 0.01,
      },
      traceId: 'p567-j1234-abcd',
      jobId: '1234',
      taskNote: '.mr-agent/task-TASK-123.md',
    });
    const file = path.join(dir, 'result.json');
    await writeResultFile(file, result, new Redactor());
    const text = await readFile(file, 'utf8');
    await expectGolden('report/result.json', text);
    const parsed = RunResultFile.parse(JSON.parse(text));
    expect(parsed.tokens.total).to.equal(470);
    expect(parsed.validation.commands.map((v) => v.passed)).to.deep.equal([true, false]);
    expect(parsed.validation.overall).to.equal('failed');
    const memory = createMemoryLogger({ redactor: new Redactor() });
    expect(await readResultFile(file, memory.logger)).to.deep.equal(parsed);
  });

  it('L3 an invalid result file is reported, not trusted', async () => {
    const file = path.join(dir, 'result.json');
    const memory = createMemoryLogger({ redactor: new Redactor(), format: 'json' });
    expect(await readResultFile(file, memory.logger)).to.equal(undefined);
    await writeFile(file, '{"schema_version":1}');
    expect(await readResultFile(file, memory.logger)).to.equal(undefined);
    expect(memory.lines.some((l) => l.includes('result file invalid'))).to.equal(true);
    expect(() => RunResultFile.parse({ schema_version: 1 })).to.throw();
  });
});
