/**
 * Rotation and retention of the planning history (old task
 * histories are archived; a finished task's history is deleted after 90 days,
 * configurable). A task's age is the time since its newest entry, read from
 * the file itself (file times do not survive CI artifacts):
 *
 * - idle longer than `archiveAfterDays`: `<task>.jsonl` moves, gzipped, to
 *   `archive/<task>.jsonl.gz` (out of what the planner reads);
 * - idle longer than `retentionDays`: the file (live or archived) is deleted.
 *
 * 0 turns either step off. Files without a dated entry are left alone.
 */
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../log/logger.ts';
import { writeFileAtomic } from './atomic.ts';

export const ARCHIVE_DIR = 'archive';
const DAY_MS = 24 * 60 * 60 * 1000;

export interface RotationOptions {
  /** The history folder (`<state dir>/<planning.history.directory>`). */
  directory: string;
  /** `planning.history.archive_after_days` (0: never). */
  archiveAfterDays: number;
  /** `planning.history.retention_days` (0: keep forever). */
  retentionDays: number;
  clock: Clock;
  logger: Logger;
}

export interface RotationResult {
  /** Live files moved to the archive, by name. */
  archived: string[];
  /** Deleted files, relative to the history folder. */
  deleted: string[];
}

/** The newest `timestamp` among the file's lines, in epoch ms. */
function newestEntry(text: string): number | undefined {
  let newest: number | undefined;
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const at = Date.parse(String((JSON.parse(line) as { timestamp?: unknown }).timestamp));
      if (Number.isFinite(at) && (newest === undefined || at > newest)) newest = at;
    } catch {
      // a corrupt line says nothing about the age
    }
  }
  return newest;
}

async function listFiles(dir: string, suffix: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  return names.filter((n) => n.endsWith(suffix)).sort();
}

function olderThan(days: number, newest: number, now: number): boolean {
  return days > 0 && now - newest > days * DAY_MS;
}

async function rotateLive(o: RotationOptions, now: number, result: RotationResult) {
  for (const name of await listFiles(o.directory, '.jsonl')) {
    const file = path.join(o.directory, name);
    const text = await readFile(file, 'utf8');
    const newest = newestEntry(text);
    if (newest === undefined) {
      o.logger.warn('history file has no dated entry; left as it is', { file });
      continue;
    }
    if (olderThan(o.retentionDays, newest, now)) {
      await rm(file, { force: true });
      result.deleted.push(name);
    } else if (olderThan(o.archiveAfterDays, newest, now)) {
      const archive = path.join(o.directory, ARCHIVE_DIR);
      await mkdir(archive, { recursive: true });
      await writeFileAtomic(path.join(archive, `${name}.gz`), gzipSync(text));
      await rm(file, { force: true });
      result.archived.push(name);
    }
  }
}

async function pruneArchive(o: RotationOptions, now: number, result: RotationResult) {
  if (o.retentionDays <= 0) return;
  const archive = path.join(o.directory, ARCHIVE_DIR);
  for (const name of await listFiles(archive, '.jsonl.gz')) {
    const file = path.join(archive, name);
    let newest: number | undefined;
    try {
      newest = newestEntry(gunzipSync(await readFile(file)).toString('utf8'));
    } catch (error) {
      o.logger.warn('archived history unreadable; left as it is', {
        file,
        error: (error as Error).message,
      });
      continue;
    }
    if (newest !== undefined && olderThan(o.retentionDays, newest, now)) {
      await rm(file, { force: true });
      result.deleted.push(`${ARCHIVE_DIR}/${name}`);
    }
  }
}

/** Archives idle task histories and deletes those past retention; a missing folder is fine. */
export async function rotateHistory(o: RotationOptions): Promise<RotationResult> {
  const now = o.clock.now();
  const result: RotationResult = { archived: [], deleted: [] };
  await rotateLive(o, now, result);
  await pruneArchive(o, now, result);
  if (result.archived.length > 0 || result.deleted.length > 0)
    o.logger.info('planning history rotated', {
      archived: result.archived.length,
      deleted: result.deleted.length,
    });
  return result;
}

/** `rotateHistory` for the start of a run: a failure is logged, never fatal. */
export async function rotateHistoryAtStart(o: RotationOptions): Promise<RotationResult> {
  try {
    return await rotateHistory(o);
  } catch (error) {
    o.logger.warn('planning history not rotated', { error: (error as Error).message });
    return { archived: [], deleted: [] };
  }
}
