import { expect } from 'chai';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ExternalServiceError } from '../../../src/errors/errors.ts';
import { MetadataStore } from '../../../src/history/metadata.ts';
import { statePaths } from '../../../src/history/paths.ts';
import { PlanningHistoryStore } from '../../../src/history/planning-history.ts';
import { RunRecords } from '../../../src/history/run-records.ts';
import { createMemoryLogger } from '../../../src/log/logger.ts';
import { Redactor } from '../../../src/log/redact.ts';
import { buildRunResult, writeResultFile } from '../../../src/report/result-file.ts';
import { fillDiskAfter } from '../../support/disk-full.ts';

/**
 * Disk full on artifact writes (SPEC I3): each state file of `.mr-agent/` is
 * written once, then the disk fills up and the next write fails. The failure
 * must be a clear error naming the file, the earlier content must be intact,
 * no temp file may be left behind, and writing works again once there is room.
 */
interface StateFile {
  name: string;
  file: (paths: ReturnType<typeof statePaths>) => string;
  write: (paths: ReturnType<typeof statePaths>, round: number) => Promise<unknown>;
}

const logger = createMemoryLogger({ redactor: new Redactor() }).logger;

function result(round: number) {
  return buildRunResult({
    taskId: 't',
    status: 'complete',
    exitCode: 0,
    summary: `round ${round}`,
    startedAt: 0,
    finishedAt: 1000,
    validation: [],
    usage: { byRole: {} },
  });
}

const history = (paths: ReturnType<typeof statePaths>) =>
  new PlanningHistoryStore({ directory: paths.historyDir, taskId: 't', logger });

export const STATE_FILES: readonly StateFile[] = [
  {
    name: 'planning history (JSONL)',
    file: (p) => path.join(p.historyDir, 't.jsonl'),
    write: (p, round) => history(p).saveReflection({ round }),
  },
  {
    name: 'metadata.json',
    file: (p) => p.metadata,
    write: (p, round) =>
      new MetadataStore({ file: p.metadata, taskId: 't', logger }).setStatus(
        'planning',
        round === 0 ? 'in_progress' : 'completed',
      ),
  },
  {
    name: 'runs.json',
    file: (p) => p.runs,
    write: (p, round) =>
      round === 0
        ? new RunRecords({ file: p.runs, logger }).begin({ runId: 'r1', taskId: 't' })
        : new RunRecords({ file: p.runs, logger }).finish('r1', 'failed', 'disk full'),
  },
  {
    name: 'result.json',
    file: (p) => p.result,
    write: (p, round) => writeResultFile(p.result, result(round), new Redactor()),
  },
];

export async function diskCell(state: StateFile): Promise<string> {
  const repo = await mkdtemp(path.join(os.tmpdir(), 'mr-agent-disk-'));
  const paths = statePaths(repo);
  await state.write(paths, 0);
  const file = state.file(paths);
  const before = await readFile(file, 'utf8');
  const disk = fillDiskAfter(0);
  let error: unknown;
  try {
    await state.write(paths, 1).catch((e: unknown) => (error = e));
  } finally {
    disk.restore();
  }
  expect(error, 'a clear error').to.be.instanceOf(ExternalServiceError);
  expect((error as Error).message).to.equal(
    `cannot write ${file}: no space left on the device (ENOSPC)`,
  );
  expect(await readFile(file, 'utf8'), 'the earlier content').to.equal(before);
  const leftovers = (await readdir(path.dirname(file))).filter((f) => f.endsWith('.tmp'));
  expect(leftovers, 'temp files').to.deep.equal([]);
  await state.write(paths, 1);
  expect(await readFile(file, 'utf8')).to.not.equal(before);
  return '✓ ExternalServiceError naming the file; earlier content intact; no temp file';
}
