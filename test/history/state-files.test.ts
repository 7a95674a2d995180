import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { MetadataStore } from '../../src/history/metadata.ts';
import { interruptedNotice, RunRecords } from '../../src/history/run-records.ts';
import { createMemoryLogger, createSilentLogger } from '../../src/log/logger.ts';
import { Redactor } from '../../src/log/redact.ts';
import { FakeClock } from '../../src/core/clock.ts';

describe('history/metadata and run records', () => {
  let dir: string;
  let clock: FakeClock;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'mr-agent-state-'));
    clock = new FakeClock(Date.UTC(2025, 0, 30, 9, 0, 0));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  describe('metadata.json (I4, seed 004 FR-3)', () => {
    const store = () =>
      new MetadataStore({
        file: path.join(dir, 'metadata.json'),
        taskId: 't1',
        logger: createSilentLogger(),
        clock,
      });

    it('G1 records revise steps and a phase failed after 3 retries (AC-4, AC-5)', async () => {
      const m = store();
      await m.setStatus('planning', 'in_progress');
      await m.setCurrentStep('planning', 'review');
      for (let i = 0; i < 3; i += 1) {
        await m.setCurrentStep('planning', 'revise');
        await m.recordRetry('planning');
      }
      await m.markFailed('planning', 3, 'review still FAIL');
      const onDisk = JSON.parse(await readFile(path.join(dir, 'metadata.json'), 'utf8')) as {
        phases: Record<string, Record<string, unknown>>;
      };
      expect(onDisk.phases.planning).to.include({
        status: 'failed',
        current_step: 'revise',
        retry_count: 3,
        started_at: '2025-01-30T09:00:00.000Z',
        completed_at: '2025-01-30T09:00:00.000Z',
        error: 'review still FAIL',
      });
      expect(await store().failedPhase()).to.equal('planning');
    });

    it('concurrent retries are all counted', async () => {
      const m = store();
      await Promise.all([
        m.recordRetry('execution'),
        m.recordRetry('execution'),
        m.recordRetry('execution'),
      ]);
      expect((await m.phase('execution')).retry_count).to.equal(3);
    });

    it('I3 a corrupt metadata.json is kept aside with a warning and started over', async () => {
      await writeFile(path.join(dir, 'metadata.json'), '{"schema_version": 1, "phases": ');
      const memory = createMemoryLogger({ redactor: new Redactor(), format: 'json' });
      const m = new MetadataStore({
        file: path.join(dir, 'metadata.json'),
        taskId: 't1',
        logger: memory.logger,
        clock,
      });
      expect((await m.read()).phases).to.deep.equal({});
      await m.setStatus('planning', 'completed');
      expect((await readdir(dir)).some((f) => f.startsWith('metadata.json.corrupt-'))).to.equal(
        true,
      );
      expect(memory.lines.some((l) => l.includes('state file invalid'))).to.equal(true);
    });
  });

  describe('runs.json (I3)', () => {
    const records = () =>
      new RunRecords({ file: path.join(dir, 'runs.json'), logger: createSilentLogger(), clock });

    it('I3 a run that never finished is reported as interrupted by the next run', async () => {
      const first = records();
      await first.begin({ runId: 'r1', taskId: 't', jobId: '101' });
      // r1 is killed here: no finish().
      clock.advance(60_000);
      const second = records();
      const { interrupted } = await second.begin({ runId: 'r2', taskId: 't', jobId: '102' });
      expect(interrupted.map((r) => r.run_id)).to.deep.equal(['r1']);
      expect(interruptedNotice(interrupted)).to.equal(
        'An earlier run was interrupted before finishing: job 101 (started Jan 30, 2025, 09:00 UTC).',
      );
      expect(interruptedNotice(interrupted, 'ja')).to.equal(
        '以前の実行が完了前に中断されました: ジョブ 101（開始 2025/01/30 9:00 UTC）。',
      );
      await second.finish('r2', 'complete', 'ok');
      const third = records();
      const again = await third.begin({ runId: 'r3', taskId: 't' });
      expect(again.interrupted).to.deep.equal([]);
      const runs = await third.list();
      expect(runs.map((r) => `${r.run_id}:${r.state}`)).to.deep.equal([
        'r1:interrupted',
        'r2:complete',
        'r3:running',
      ]);
      expect(runs[1]).to.include({ finished_at: '2025-01-30T09:01:00.000Z', summary: 'ok' });
      expect((await third.last())?.run_id).to.equal('r3');
    });

    it('keeps only the newest records', async () => {
      const r = new RunRecords({
        file: path.join(dir, 'runs.json'),
        logger: createSilentLogger(),
        clock,
        keep: 3,
      });
      for (let i = 1; i <= 5; i += 1) {
        await r.begin({ runId: `r${i}`, taskId: 't' });
        await r.finish(`r${i}`, 'complete');
      }
      expect((await r.list()).map((x) => x.run_id)).to.deep.equal(['r3', 'r4', 'r5']);
    });
  });
});
