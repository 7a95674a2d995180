/**
 * The planning history of one task as JSONL:
 * `<history dir>/<task id>.jsonl`. Appends rewrite the file atomically and
 * are serialised per file; reading validates every line and skips a corrupt
 * one with a warning instead of failing.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../log/logger.ts';
import type { Clock } from '../core/clock.ts';
import { systemClock } from '../core/clock.ts';
import { writeFileAtomic } from './atomic.ts';
import type {
  ExecutionEntry,
  ExecutionInput,
  PlanEntry,
  ReflectionEntry,
  ReplanDecisionEntry,
  ReplanDecisionInput,
  RevisionEntry,
} from './entries.ts';
import { HistoryEntry } from './entries.ts';
import { safeFileName } from './paths.ts';

export interface PlanningHistoryOptions {
  /** Absolute history directory (`<state dir>/<planning.history.directory>`). */
  directory: string;
  taskId: string;
  issueId?: string;
  runId?: string;
  logger: Logger;
  clock?: Clock;
}

type JsonObject = Record<string, unknown>;

/** Appends in flight per file, so two appends in one process never lose each other. */
const queues = new Map<string, Promise<unknown>>();

function enqueue<T>(file: string, work: () => Promise<T>): Promise<T> {
  const previous = queues.get(file) ?? Promise.resolve();
  const next = previous.then(work, work);
  const settled = next.catch(() => undefined);
  queues.set(file, settled);
  void settled.then(() => {
    if (queues.get(file) === settled) queues.delete(file);
  });
  return next;
}

/** Reads and validates a JSONL history file; corrupt lines are skipped with a warning. */
export async function readHistoryFile(file: string, logger: Logger): Promise<HistoryEntry[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const entries: HistoryEntry[] = [];
  for (const [index, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      logger.warn('history line skipped: not JSON', { file, line: index + 1 });
      continue;
    }
    const parsed = HistoryEntry.safeParse(value);
    if (parsed.success) entries.push(parsed.data);
    else
      logger.warn('history line skipped: invalid entry', {
        file,
        line: index + 1,
        error: parsed.error.message,
      });
  }
  return entries;
}

export class PlanningHistoryStore {
  readonly file: string;
  private readonly clock: Clock;

  constructor(private readonly options: PlanningHistoryOptions) {
    this.file = path.join(options.directory, `${safeFileName(options.taskId)}.jsonl`);
    this.clock = options.clock ?? systemClock;
  }

  /** Saves a plan; `reusedFrom` names the earlier run's plan it takes over. */
  savePlan(plan: JsonObject, reusedFrom?: PlanEntry['reused_from']): Promise<PlanEntry> {
    return this.append({
      type: 'plan',
      plan,
      ...(reusedFrom ? { reused_from: reusedFrom } : {}),
    }) as Promise<PlanEntry>;
  }

  /** Saves a revised plan with why and what changed; the revision number counts up from 1. */
  saveRevision(
    updatedPlan: JsonObject,
    details: { reason: string; changes: unknown[]; reflection?: JsonObject },
  ): Promise<RevisionEntry> {
    return enqueue(this.file, async () => {
      const revision = (await this.getRevisionHistory()).length + 1;
      return this.appendNow({ type: 'revision', revision, updated_plan: updatedPlan, ...details });
    }) as Promise<RevisionEntry>;
  }

  saveReflection(evaluation: JsonObject): Promise<ReflectionEntry> {
    return this.append({ type: 'reflection', evaluation }) as Promise<ReflectionEntry>;
  }

  saveReplanDecision(decision: ReplanDecisionInput): Promise<ReplanDecisionEntry> {
    return this.append({ ...decision, type: 'replan_decision' }) as Promise<ReplanDecisionEntry>;
  }

  saveExecution(execution: ExecutionInput): Promise<ExecutionEntry> {
    return this.append({ ...execution, type: 'execution' }) as Promise<ExecutionEntry>;
  }

  /** Every valid entry of this task, in file order. */
  readAll(): Promise<HistoryEntry[]> {
    return readHistoryFile(this.file, this.options.logger);
  }

  async hasPlan(): Promise<boolean> {
    return (await this.getLatestPlan()) !== undefined;
  }

  /** The newest plan: the last `plan` entry or the `updated_plan` of a later `revision`. */
  async getLatestPlan(): Promise<
    { plan: JsonObject; entry: PlanEntry | RevisionEntry } | undefined
  > {
    const entries = await this.readAll();
    for (let i = entries.length - 1; i >= 0; i -= 1) {
      const entry = entries[i]!;
      if (entry.type === 'plan') return { plan: entry.plan, entry };
      if (entry.type === 'revision') return { plan: entry.updated_plan, entry };
    }
    return undefined;
  }

  async getRevisionHistory(): Promise<RevisionEntry[]> {
    return (await this.readAll()).filter((e): e is RevisionEntry => e.type === 'revision');
  }

  async getAllReflections(): Promise<ReflectionEntry[]> {
    return (await this.readAll()).filter((e): e is ReflectionEntry => e.type === 'reflection');
  }

  async getReplanDecisions(): Promise<ReplanDecisionEntry[]> {
    return (await this.readAll()).filter(
      (e): e is ReplanDecisionEntry => e.type === 'replan_decision',
    );
  }

  /**
   * Every entry of every task in the history folder that belongs to
   * `issueId` (earlier runs on the same MR/issue), oldest first.
   */
  async getPastExecutionsForIssue(issueId: string): Promise<HistoryEntry[]> {
    const files = await readdir(this.options.directory).catch(() => [] as string[]);
    const all: HistoryEntry[] = [];
    for (const name of files.filter((f) => f.endsWith('.jsonl')).sort()) {
      const entries = await readHistoryFile(
        path.join(this.options.directory, name),
        this.options.logger,
      );
      all.push(...entries.filter((e) => e.issue_id === issueId));
    }
    return all
      .map((entry, index) => ({ entry, index }))
      .sort((a, b) => a.entry.timestamp.localeCompare(b.entry.timestamp) || a.index - b.index)
      .map(({ entry }) => entry);
  }

  private append(fields: JsonObject & { type: HistoryEntry['type'] }): Promise<HistoryEntry> {
    return enqueue(this.file, () => this.appendNow(fields));
  }

  /** Validates the entry, then rewrites the file with it appended (temp file + rename). */
  private async appendNow(
    fields: JsonObject & { type: HistoryEntry['type'] },
  ): Promise<HistoryEntry> {
    const entry = HistoryEntry.parse({
      ...fields,
      timestamp: new Date(this.clock.now()).toISOString(),
      task_id: this.options.taskId,
      ...(this.options.issueId === undefined ? {} : { issue_id: this.options.issueId }),
      ...(this.options.runId === undefined ? {} : { run_id: this.options.runId }),
    });
    let existing = '';
    try {
      existing = await readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const separator = existing === '' || existing.endsWith('\n') ? '' : '\n';
    await writeFileAtomic(this.file, `${existing}${separator}${JSON.stringify(entry)}\n`);
    return entry;
  }
}
