import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { FakeClock } from '../../src/core/clock.ts';
import { rotateHistory } from '../../src/history/rotation.ts';
import { createMemoryLogger } from '../../src/log/logger.ts';
import { Redactor } from '../../src/log/redact.ts';
import { action, assessment, planWith } from '../support/plans.ts';
import { exec, json } from '../support/script.ts';
import { runScenario } from '../run/scenario.ts';

const DAY = 24 * 60 * 60 * 1000;
const NOW = Date.parse('2025-06-01T12:00:00Z');

function entries(taskId: string, ...daysAgo: number[]): string {
  return daysAgo
    .map((d) =>
      JSON.stringify({
        type: 'execution',
        timestamp: new Date(NOW - d * DAY).toISOString(),
        task_id: taskId,
        action_id: 'A1',
        status: 'success',
        summary: 'did it',
      }),
    )
    .map((line) => `${line}\n`)
    .join('');
}

describe('seed 001 §11.1 planning history rotation and retention', () => {
  let dir: string;
  let memory: ReturnType<typeof createMemoryLogger>;

  beforeEach(async () => {
    dir = path.join(await mkdtemp(path.join(os.tmpdir(), 'mr-agent-rotate-')), 'planning_history');
    await mkdir(dir, { recursive: true });
    memory = createMemoryLogger({ redactor: new Redactor(), format: 'json' });
  });
  afterEach(() => rm(path.dirname(dir), { recursive: true, force: true }));

  const rotate = (options: { archiveAfterDays?: number; retentionDays?: number } = {}) =>
    rotateHistory({
      directory: dir,
      archiveAfterDays: options.archiveAfterDays ?? 30,
      retentionDays: options.retentionDays ?? 90,
      clock: new FakeClock(NOW),
      logger: memory.logger,
    });

  it('seed 001 §11.1 a task idle past archive_after_days is archived (gzip), one past retention_days is deleted, a recent one stays', async () => {
    const recent = entries('recent', 100, 1);
    const idle = entries('idle', 60, 40);
    await writeFile(path.join(dir, 'recent.jsonl'), recent);
    await writeFile(path.join(dir, 'idle.jsonl'), idle);
    await writeFile(path.join(dir, 'old.jsonl'), entries('old', 120, 91));

    const result = await rotate();

    expect(result).to.deep.equal({ archived: ['idle.jsonl'], deleted: ['old.jsonl'] });
    expect((await readdir(dir)).sort()).to.deep.equal(['archive', 'recent.jsonl']);
    expect(await readFile(path.join(dir, 'recent.jsonl'), 'utf8')).to.equal(recent);
    const archived = gunzipSync(await readFile(path.join(dir, 'archive', 'idle.jsonl.gz')));
    expect(archived.toString('utf8')).to.equal(idle);
  });

  it('seed 001 §11.1 archived histories are deleted once their last entry is older than retention_days', async () => {
    await mkdir(path.join(dir, 'archive'));
    await writeFile(path.join(dir, 'archive', 'a.jsonl.gz'), gzipSync(entries('a', 95)));
    await writeFile(path.join(dir, 'archive', 'b.jsonl.gz'), gzipSync(entries('b', 50)));

    const result = await rotate();

    expect(result.deleted).to.deep.equal(['archive/a.jsonl.gz']);
    expect(await readdir(path.join(dir, 'archive'))).to.deep.equal(['b.jsonl.gz']);
  });

  it('seed 001 §11.1 retention_days 0 keeps everything and archive_after_days 0 archives nothing', async () => {
    await writeFile(path.join(dir, 'old.jsonl'), entries('old', 400));
    expect(await rotate({ archiveAfterDays: 0, retentionDays: 0 })).to.deep.equal({
      archived: [],
      deleted: [],
    });
    expect(existsSync(path.join(dir, 'old.jsonl'))).to.equal(true);
  });

  it('seed 001 §11.1 a file without a readable entry is left alone and logged; a missing folder is fine', async () => {
    await writeFile(path.join(dir, 'broken.jsonl'), 'not json\n');
    expect(await rotate()).to.deep.equal({ archived: [], deleted: [] });
    expect(existsSync(path.join(dir, 'broken.jsonl'))).to.equal(true);
    expect(memory.lines.some((l) => l.includes('history file has no dated entry'))).to.equal(true);
    await rm(dir, { recursive: true });
    expect(await rotate()).to.deep.equal({ archived: [], deleted: [] });
  });

  it('seed 001 §11.1 a run prunes the history folder it starts with (planning.history.retention_days)', async () => {
    // the scenario clock starts at 2023-11-14T22:13:20Z
    const start = Date.parse('2023-11-14T22:13:20Z');
    const old = JSON.stringify({
      type: 'execution',
      timestamp: new Date(start - 10 * DAY).toISOString(),
      task_id: 'earlier',
      action_id: 'A1',
      status: 'success',
      summary: 'old run',
    });
    const { outcome, dir: repo } = await runScenario({
      realReporting: true,
      sets: ['planning.history.retention_days=7', 'planning.reflection.trigger_interval=0'],
      files: { '.mr-agent/planning_history/earlier.jsonl': `${old}\n` },
      steps: [
        json('planning', planWith([action('task_1', 'Do it')])),
        exec.say('DONE: did it'),
        json('completion', assessment(true)),
      ],
    });
    expect(outcome.state).to.equal('COMPLETE');
    const history = path.join(repo, '.mr-agent', 'planning_history');
    expect(await readdir(history)).to.deep.equal(['task-1.jsonl']);
  });
});
