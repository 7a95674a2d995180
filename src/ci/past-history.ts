import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import * as z from 'zod';
import { restorePastRuns } from '../gitlab/past-runs.ts';
import type { GitLabPort } from '../core/gitlab-port.ts';
import type { JobReads } from '../gitlab/job-reads.ts';
import { writeFileAtomic } from '../history/atomic.ts';
import { readHistoryFile } from '../history/planning-history.ts';
import type { StatePaths } from '../history/paths.ts';
import type { Logger } from '../log/logger.ts';
import { Plan } from '../core/plan.ts';
import { replanStateFile } from '../phases/replan/state.ts';
import { CiRequest } from './request.ts';
import { LANGUAGES } from '../messages/language.ts';

/**
 * History across pipelines for a CI run: earlier runs on the
 * same merge request or issue are found through their progress notes, their
 * `.mr-agent/` artifacts are downloaded, and their planning history is merged
 * into this checkout's, so the planner sees them, `/agent approve` finds the
 * last plan, `/agent retry` the last request, and the replan hook the state a
 * paused run left (a ❓ question waiting for its answer).
 */

/** The replan hook's state folder inside `.mr-agent/` (src/replan/state.ts). */
const REPLAN_DIR = path.basename(path.dirname(replanStateFile('.', 'key')));

/** What each CI run leaves next to its history: the request it worked on. */
export const CI_REQUEST_FILE = 'ci-request.json';

export const CiRequestRecord = z.object({
  request: CiRequest,
  task: z.object({ id: z.string(), text: z.string() }),
  jobId: z.number().int(),
  /** The notes' language decided for the run: a retry or an approval of it writes in it too. */
  language: z.enum(LANGUAGES).optional(),
});
export type CiRequestRecord = z.infer<typeof CiRequestRecord>;

/**
 * The history's and the replan state's issue id (src/history/entries.ts):
 * `12!42` for merge request !42 of project 12, `12#7` for its issue `#7`.
 */
export function issueIdOf(projectId: number, request: CiRequest): string | undefined {
  const target = request.target;
  if (target.kind === 'none') return undefined;
  return `${projectId}${target.kind === 'merge_request' ? '!' : '#'}${target.iid}`;
}

export async function writeRequestRecord(paths: StatePaths, record: CiRequestRecord) {
  await mkdir(paths.stateDir, { recursive: true });
  await writeFileAtomic(
    path.join(paths.stateDir, CI_REQUEST_FILE),
    `${JSON.stringify(record, null, 2)}\n`,
  );
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

async function readRecord(file: string): Promise<CiRequestRecord | undefined> {
  try {
    return CiRequestRecord.parse(JSON.parse(await readFile(file, 'utf8')));
  } catch {
    return undefined;
  }
}

/** Copies the files of `from` that `to` does not have yet (newer runs are merged first). */
async function copyMissing(from: string, to: string, suffix: string): Promise<void> {
  const files = await readdir(from).catch(() => [] as string[]);
  if (files.length === 0) return;
  await mkdir(to, { recursive: true });
  for (const name of files.filter((f) => f.endsWith(suffix))) {
    const target = path.join(to, name);
    if (!(await exists(target))) await copyFile(path.join(from, name), target);
  }
}

/**
 * Merges one restored run: its history files, its replan state (counters and
 * a question still waiting for an answer, which the replan hook resumes) and,
 * when this checkout has none, its run records.
 */
async function mergeRun(dir: string, paths: StatePaths, historyRel: string): Promise<void> {
  await copyMissing(path.join(dir, historyRel), paths.historyDir, '.jsonl');
  await copyMissing(path.join(dir, REPLAN_DIR), path.join(paths.stateDir, REPLAN_DIR), '.json');
  const runs = path.join(dir, path.basename(paths.runs));
  if ((await exists(runs)) && !(await exists(paths.runs))) {
    await mkdir(path.dirname(paths.runs), { recursive: true });
    await copyFile(runs, paths.runs);
  }
}

export interface RestoredHistory {
  runs: number;
  /** The newest earlier CI request on this merge request or issue (`/agent retry`). */
  lastRequest: CiRequestRecord | undefined;
  /** Every earlier CI request whose artifacts were restored, newest first (`/agent approve`). */
  requests: CiRequestRecord[];
}

export async function restoreHistory(input: {
  gitlab: GitLabPort;
  projectId: number;
  /** The job's reads: earlier runs are found in its one listing of the threads. */
  reads?: Pick<JobReads, 'notes'>;
  request: CiRequest;
  botUserId: number;
  currentJobId: number;
  paths: StatePaths;
  logger: Logger;
}): Promise<RestoredHistory> {
  const target = input.request.target;
  if (target.kind === 'none') return { runs: 0, lastRequest: undefined, requests: [] };
  const on = { type: target.kind, iid: target.iid };
  const notes = await input.reads?.notes(on);
  const into = await mkdtemp(path.join(os.tmpdir(), 'mr-agent-past-runs-'));
  try {
    const runs = await restorePastRuns({
      gitlab: input.gitlab,
      project: input.projectId,
      on,
      ...(notes ? { notes } : {}),
      botUserId: input.botUserId,
      currentJobId: String(input.currentJobId),
      into,
      stateDir: path.basename(input.paths.stateDir),
      logger: input.logger,
    });
    const requests: CiRequestRecord[] = [];
    const historyRel = path.relative(input.paths.stateDir, input.paths.historyDir);
    for (const run of runs.slice().reverse()) {
      if (!run.dir) continue;
      await mergeRun(run.dir, input.paths, historyRel);
      const record = await readRecord(path.join(run.dir, CI_REQUEST_FILE));
      if (record) requests.push(record);
    }
    input.logger.info('earlier runs restored', {
      runs: runs.length,
      restored: runs.filter((r) => r.source === 'restored').length,
    });
    return { runs: runs.length, lastRequest: requests[0], requests };
  } finally {
    await rm(into, { recursive: true, force: true });
  }
}

/**
 * The newest plan recorded for this merge request or issue (`/agent approve`),
 * of one task when `taskId` is given (the `/agent plan` run approved).
 */
export async function lastPlan(
  paths: StatePaths,
  issueId: string,
  logger: Logger,
  taskId?: string,
): Promise<Plan | undefined> {
  const files = await readdir(paths.historyDir).catch(() => [] as string[]);
  let newest: { at: string; plan: unknown } | undefined;
  for (const name of files.filter((f) => f.endsWith('.jsonl'))) {
    for (const entry of await readHistoryFile(path.join(paths.historyDir, name), logger)) {
      if (entry.type !== 'plan' || entry.issue_id !== issueId) continue;
      if (taskId !== undefined && entry.task_id !== taskId) continue;
      if (!newest || entry.timestamp > newest.at)
        newest = { at: entry.timestamp, plan: entry.plan };
    }
  }
  const parsed = newest ? Plan.safeParse(newest.plan) : undefined;
  return parsed?.success ? parsed.data : undefined;
}
