/**
 * History across pipelines: earlier runs on the same MR/issue
 * are found by the hidden marker in their progress note (posted by the bot),
 * the marker names the job whose artifacts hold that run's `.mr-agent/`
 * folder, and the folder is downloaded through the API and extracted. When
 * the artifact has expired or was deleted, the note itself is what remains.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ExternalServiceError } from '../errors/errors.ts';
import type { Logger } from '../log/logger.ts';
import { parseMarker, type NoteMarker } from '../report/marker.ts';
import type { GitLabPort, Note, Noteable, ProjectRef } from '../core/gitlab-port.ts';

/** An earlier run, as its progress note tells it. */
export interface PastRunNote {
  note: Note;
  marker: NoteMarker;
  /** Its marker still says `running`: the run never wrote its final state. */
  interrupted: boolean;
}

export interface PastRun extends PastRunNote {
  /**
   * `restored`: the run's `.mr-agent/` was extracted into `dir`.
   * `note-only`: no artifact (none named, expired or deleted) — rebuild a minimal
   * entry from `marker` and `note.body`.
   */
  source: 'restored' | 'note-only';
  dir: string | undefined;
  /** Why the artifact could not be used (for `note-only`). */
  reason: string | undefined;
}

const RUNNING_STATES = new Set(['running', 'pending', 'started']);
/** Artifacts downloaded at once (each is held in memory while it is unpacked). */
const PARALLEL_DOWNLOADS = 3;
/** The largest unpacked artifact accepted (protects the job's disk). */
const MAX_UNPACKED_BYTES = 256 * 1024 * 1024;

/** Where to look for earlier runs. */
export interface PastRunQuery {
  gitlab: GitLabPort;
  project: ProjectRef;
  on: Noteable;
  botUserId: number;
  currentJobId?: string | undefined;
  /** The notes when the job already listed them (`JobReads.notes`); default: listed here. */
  notes?: readonly Note[];
}

/** Progress notes of earlier runs (oldest first), posted by the bot; the current job is left out. */
export async function findPastRunNotes(input: PastRunQuery): Promise<PastRunNote[]> {
  const notes = input.notes ?? (await input.gitlab.listNotes(input.project, input.on));
  const runs: PastRunNote[] = [];
  for (const note of notes) {
    if (note.system || note.author.id !== input.botUserId) continue;
    const marker = parseMarker(note.body);
    if (!marker || marker.kind !== 'progress') continue;
    if (input.currentJobId !== undefined && marker.job === input.currentJobId) continue;
    runs.push({ note, marker, interrupted: RUNNING_STATES.has(marker.state ?? '') });
  }
  return runs;
}

/** Safe relative path inside `stateDir/` of a zip entry, or undefined to skip it. */
function entryTarget(name: string, stateDir: string): string | undefined {
  const normal = path.posix.normalize(name.replace(/\\/g, '/'));
  const prefix = `${stateDir}/`;
  if (!normal.startsWith(prefix) || normal.endsWith('/')) return undefined;
  const inner = normal.slice(prefix.length);
  if (inner === '' || inner.startsWith('../') || path.posix.isAbsolute(inner)) return undefined;
  return inner;
}

/** Writes the `stateDir/` part of an artifacts zip into `dir`; returns the files written. */
export async function extractStateDir(
  zip: Uint8Array,
  stateDir: string,
  dir: string,
): Promise<string[]> {
  let unpacked = 0;
  // zip support loads only when there is an earlier run's artifact to open: a job starts sooner
  const { unzipSync } = await import('fflate');
  const entries = unzipSync(zip, {
    filter: (file) => {
      if (!entryTarget(file.name, stateDir)) return false;
      unpacked += file.originalSize;
      if (unpacked > MAX_UNPACKED_BYTES) throw new Error('artifact too large to restore');
      return true;
    },
  });
  const written: string[] = [];
  for (const [name, data] of Object.entries(entries)) {
    const inner = entryTarget(name, stateDir)!;
    const target = path.join(dir, ...inner.split('/'));
    if (!target.startsWith(path.resolve(dir) + path.sep)) continue;
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, data);
    written.push(inner);
  }
  return written.sort();
}

async function restoreOne(
  gitlab: GitLabPort,
  project: ProjectRef,
  run: PastRunNote,
  stateDir: string,
  into: string,
  logger: Logger | undefined,
): Promise<PastRun> {
  const jobId = Number(run.marker.job);
  const noteOnly = (reason: string): PastRun => ({
    ...run,
    source: 'note-only',
    dir: undefined,
    reason,
  });
  if (!run.marker.job || !Number.isInteger(jobId)) return noteOnly('the note names no job');
  try {
    const zip = await gitlab.downloadJobArtifacts(project, jobId);
    const dir = path.join(into, `job-${jobId}`);
    const files = await extractStateDir(zip, stateDir, dir);
    if (files.length === 0) return noteOnly(`job ${jobId}'s artifacts hold no ${stateDir}/ folder`);
    logger?.info('earlier run restored', { job: jobId, files: files.length });
    return { ...run, source: 'restored', dir, reason: undefined };
  } catch (error) {
    const gone = error instanceof ExternalServiceError && error.status === 404;
    const reason = gone
      ? `job ${jobId}'s artifacts expired or were deleted`
      : `job ${jobId}'s artifacts could not be read: ${(error as Error).message}`;
    logger?.warn('earlier run falls back to its note', { job: jobId, reason });
    return noteOnly(reason);
  }
}

/**
 * Finds earlier runs on this MR/issue and restores their `.mr-agent/` folders
 * under `into/job-<id>/`. Never fails because of one run's artifact: that run
 * falls back to its note.
 */
export async function restorePastRuns(
  input: PastRunQuery & {
    /** Folder to restore into (e.g. `.mr-agent/past-runs`). */
    into: string;
    /** Name of the state folder inside the artifacts (default `.mr-agent`). */
    stateDir?: string;
    logger?: Logger;
  },
): Promise<PastRun[]> {
  const notes = await findPastRunNotes(input);
  const restore = (run: PastRunNote) =>
    restoreOne(
      input.gitlab,
      input.project,
      run,
      input.stateDir ?? '.mr-agent',
      input.into,
      input.logger,
    );
  return inParallel(notes, PARALLEL_DOWNLOADS, restore);
}

/** `each` over `items`, at most `limit` at once; the results in the items' order. */
async function inParallel<T, R>(
  items: readonly T[],
  limit: number,
  each: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await each(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
