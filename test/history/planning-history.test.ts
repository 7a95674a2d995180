import { appendFile, mkdtemp, readdir, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { ExternalServiceError } from '../../src/errors/errors.ts';
import { writeFileAtomic } from '../../src/history/atomic.ts';
import { PlanningHistoryStore } from '../../src/history/planning-history.ts';
import { statePaths } from '../../src/history/paths.ts';
import { createMemoryLogger } from '../../src/log/logger.ts';
import { Redactor } from '../../src/log/redact.ts';
import { FakeClock } from '../../src/core/clock.ts';
import { fillDiskAfter } from '../support/disk-full.ts';

const plan = {
  phase: 'planning',
  goal_understanding: {
    main_objective: 'add retry',
    success_criteria: ['tests pass'],
    constraints: [],
  },
  task_decomposition: { reasoning: 'r', subtasks: [{ id: 'task_1', description: 'd' }] },
  action_plan: { execution_order: ['task_1'], actions: [] },
};

describe('history/planning-history', () => {
  let dir: string;
  let clock: FakeClock;
  let memory: ReturnType<typeof createMemoryLogger>;
  const store = (taskId: string, issueId?: string, runId?: string) =>
    new PlanningHistoryStore({
      directory: dir,
      taskId,
      issueId,
      runId,
      logger: memory.logger,
      clock,
    });

  beforeEach(async () => {
    dir = path.join(await mkdtemp(path.join(os.tmpdir(), 'mr-agent-hist-')), 'planning_history');
    clock = new FakeClock(Date.UTC(2024, 10, 23, 10, 30, 0));
    memory = createMemoryLogger({ redactor: new Redactor(), format: 'json' });
  });
  afterEach(async () => {
    await rm(path.dirname(dir), { recursive: true, force: true });
  });

  it('I1 saves a plan and reads it back as the latest plan (seed 001 §13.1.2)', async () => {
    const s = store('test-uuid');
    expect(await s.hasPlan()).to.equal(false);
    await s.savePlan(plan);
    const latest = await s.getLatestPlan();
    expect(latest?.plan).to.deep.equal(plan);
    expect(await s.hasPlan()).to.equal(true);
    const line = JSON.parse((await readFile(s.file, 'utf8')).trim()) as Record<string, unknown>;
    expect(line).to.include({
      type: 'plan',
      timestamp: '2024-11-23T10:30:00.000Z',
      task_id: 'test-uuid',
    });
  });

  it('I1 revisions are numbered and the newest revision is the latest plan', async () => {
    const s = store('t1');
    await s.savePlan(plan);
    clock.advance(5 * 60_000);
    await s.saveReflection({ status: 'failure', plan_revision_needed: true });
    const r1 = await s.saveRevision(
      { v: 1 },
      { reason: 'error recovery', changes: [{ type: 'modify_action' }] },
    );
    const r2 = await s.saveRevision(
      { v: 2 },
      { reason: 'again', changes: [], reflection: { x: 1 } },
    );
    expect([r1.revision, r2.revision]).to.deep.equal([1, 2]);
    expect((await s.getLatestPlan())?.plan).to.deep.equal({ v: 2 });
    expect((await s.getRevisionHistory()).map((r) => r.reason)).to.deep.equal([
      'error recovery',
      'again',
    ]);
    expect(await s.getAllReflections()).to.have.length(1);
  });

  it('F3 records replan decisions with executed, override reason, result and duration (seed 003 §10)', async () => {
    const s = store('t1', '12!42', 'run-1');
    await s.saveReplanDecision({
      replan_id: 'replan-1',
      phase: 'execution',
      llm_decision: { replan_needed: true, confidence: 0.4 },
      confidence: 0.4,
      executed: false,
      override_reason: 'confidence below min_confidence_threshold',
      result: 'skipped',
      duration_ms: 1200,
    });
    const [d] = await s.getReplanDecisions();
    expect(d).to.include({
      replan_id: 'replan-1',
      executed: false,
      result: 'skipped',
      issue_id: '12!42',
      run_id: 'run-1',
    });
  });

  it('I1 finds the past executions of the same MR/issue across tasks, oldest first', async () => {
    const a = store('task-a', '12!42');
    const b = store('task-b', '12!42');
    const other = store('task-c', '12#7');
    await a.savePlan(plan);
    clock.advance(1000);
    await other.savePlan(plan);
    clock.advance(1000);
    await b.savePlan(plan);
    clock.advance(1000);
    await a.saveExecution({ action_id: 'task_1', status: 'error', summary: 'ImportError' });
    const past = await other.getPastExecutionsForIssue('12!42');
    expect(past.map((e) => `${e.task_id}:${e.type}`)).to.deep.equal([
      'task-a:plan',
      'task-b:plan',
      'task-a:execution',
    ]);
  });

  it('I3 a corrupt line is skipped with a warning, never a crash', async () => {
    const s = store('t1');
    await s.savePlan(plan);
    await appendFile(s.file, '{"type":"plan", broken\n{"type":"alien","timestamp":"x"}\n');
    await s.saveReflection({ ok: true });
    const entries = await s.readAll();
    expect(entries.map((e) => e.type)).to.deep.equal(['plan', 'reflection']);
    const warnings = memory.lines.filter((l) => l.includes('history line skipped'));
    expect(warnings).to.have.length(2);
    expect(warnings[0]).to.include('"line":2');
  });

  it('I3 concurrent appends in one process are all kept', async () => {
    const s = store('t1');
    await Promise.all(Array.from({ length: 20 }, (_, i) => s.saveReflection({ i })));
    await Promise.all([
      s.saveRevision({ a: 1 }, { reason: 'a', changes: [] }),
      s.saveRevision({ b: 1 }, { reason: 'b', changes: [] }),
    ]);
    expect(await s.getAllReflections()).to.have.length(20);
    expect((await s.getRevisionHistory()).map((r) => r.revision)).to.deep.equal([1, 2]);
  });

  it('I3 appends leave no temporary files behind', async () => {
    const s = store('t1');
    await s.savePlan(plan);
    await s.saveReflection({});
    expect(await readdir(dir)).to.deep.equal(['t1.jsonl']);
  });

  it('keeps task ids safe as file names', () => {
    expect(path.basename(store('../../etc/passwd').file)).to.equal('__.._etc_passwd.jsonl');
  });

  it('resolves the state paths under the repository', () => {
    const p = statePaths('/repo', '.mr-agent', 'planning_history');
    expect(p).to.deep.include({
      stateDir: '/repo/.mr-agent',
      historyDir: '/repo/.mr-agent/planning_history',
      metadata: '/repo/.mr-agent/metadata.json',
    });
  });
});

describe('history/atomic', () => {
  it('I3 writes through a temporary file and rename, replacing the old content', async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'mr-agent-atomic-'));
    try {
      const file = path.join(root, 'a/b/c.json');
      await writeFileAtomic(file, 'one');
      await writeFileAtomic(file, 'two');
      expect(await readFile(file, 'utf8')).to.equal('two');
      expect(await readdir(path.dirname(file))).to.deep.equal(['c.json']);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('I3 a failed write leaves the old file intact and no temp file', async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'mr-agent-atomic-'));
    try {
      const file = path.join(root, 'x.json');
      await writeFile(file, 'old');
      await mkdir(path.join(root, 'x.json.dir'));
      let failed = false;
      try {
        await writeFileAtomic(path.join(root, 'x.json.dir'), 'new');
      } catch {
        failed = true;
      }
      expect(failed).to.equal(true);
      expect(await readFile(file, 'utf8')).to.equal('old');
      expect((await readdir(root)).sort()).to.deep.equal(['x.json', 'x.json.dir']);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('I3 a full disk: the append fails with a clear error naming the file; the history written before is kept whole', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'mr-agent-full-'));
    const history = new PlanningHistoryStore({
      directory: dir,
      taskId: 'disk-full',
      logger: createMemoryLogger({ redactor: new Redactor() }).logger,
    });
    await history.savePlan(plan);
    const before = await readFile(history.file, 'utf8');
    const disk = fillDiskAfter(0);
    let error: unknown;
    try {
      await history.saveReflection({ progress: 'half' }).catch((e: unknown) => (error = e));
    } finally {
      disk.restore();
    }

    expect(error).to.be.instanceOf(ExternalServiceError);
    expect((error as Error).message).to.equal(
      `cannot write ${history.file}: no space left on the device (ENOSPC)`,
    );
    expect(disk.refused).to.equal(1);
    expect(await readFile(history.file, 'utf8')).to.equal(before);
    expect(await readdir(dir)).to.deep.equal(['disk-full.jsonl']);
    expect((await history.readAll()).map((e) => e.type)).to.deep.equal(['plan']);
    await history.saveReflection({ progress: 'after space was freed' });
    expect((await history.readAll()).map((e) => e.type)).to.deep.equal(['plan', 'reflection']);
  });
});
