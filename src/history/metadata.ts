/**
 * `metadata.json`: the per-phase status of the task: `phases.<phase>.status`,
 * `current_step` and `retry_count`, so a
 * phase that failed its review three times is recorded as `failed` and later
 * phases can be skipped.
 */
import * as z from 'zod';
import type { Logger } from '../log/logger.ts';
import type { Clock } from '../core/clock.ts';
import { systemClock } from '../core/clock.ts';
import { JsonFile } from './json-file.ts';

export const PHASE_STATUSES = ['pending', 'in_progress', 'completed', 'failed', 'skipped'] as const;
export type PhaseStatusValue = (typeof PHASE_STATUSES)[number];

export const PhaseMetadata = z.object({
  status: z.enum(PHASE_STATUSES),
  /** The step inside the phase: `execute`, `review`, `revise`, … */
  current_step: z.string().nullable(),
  retry_count: z.number().int().min(0),
  started_at: z.iso.datetime().nullable(),
  completed_at: z.iso.datetime().nullable(),
  error: z.string().optional(),
});
export type PhaseMetadata = z.infer<typeof PhaseMetadata>;

export const Metadata = z.object({
  schema_version: z.literal(1),
  task_id: z.string(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
  phases: z.record(z.string(), PhaseMetadata),
});
export type Metadata = z.infer<typeof Metadata>;

const EMPTY_PHASE: PhaseMetadata = {
  status: 'pending',
  current_step: null,
  retry_count: 0,
  started_at: null,
  completed_at: null,
};

export interface MetadataStoreOptions {
  file: string;
  taskId: string;
  logger: Logger;
  clock?: Clock;
}

export class MetadataStore {
  private readonly doc: JsonFile<Metadata>;
  private readonly clock: Clock;

  constructor(options: MetadataStoreOptions) {
    this.clock = options.clock ?? systemClock;
    const now = () => new Date(this.clock.now()).toISOString();
    this.doc = new JsonFile(
      options.file,
      Metadata,
      () => ({
        schema_version: 1,
        task_id: options.taskId,
        created_at: now(),
        updated_at: now(),
        phases: {},
      }),
      options.logger,
    );
  }

  read(): Promise<Metadata> {
    return this.doc.read();
  }

  async phase(name: string): Promise<PhaseMetadata> {
    return (await this.read()).phases[name] ?? { ...EMPTY_PHASE };
  }

  /** Changes one phase; `started_at`/`completed_at` follow the status. */
  updatePhase(
    name: string,
    patch: Partial<PhaseMetadata> | ((prev: PhaseMetadata) => Partial<PhaseMetadata>),
  ): Promise<Metadata> {
    const at = new Date(this.clock.now()).toISOString();
    return this.doc.update((doc) => {
      const prev = doc.phases[name] ?? { ...EMPTY_PHASE };
      const change = typeof patch === 'function' ? patch(prev) : patch;
      const next: PhaseMetadata = { ...prev, ...change };
      if (change.status === 'in_progress' && !prev.started_at) next.started_at = at;
      if (change.status === 'completed' || change.status === 'failed') next.completed_at = at;
      return { ...doc, updated_at: at, phases: { ...doc.phases, [name]: next } };
    });
  }

  setStatus(name: string, status: PhaseStatusValue): Promise<Metadata> {
    return this.updatePhase(name, { status });
  }

  setCurrentStep(name: string, step: string): Promise<Metadata> {
    return this.updatePhase(name, { current_step: step });
  }

  /** Counts one more revise of the phase and returns the new count. */
  async recordRetry(name: string): Promise<number> {
    const doc = await this.updatePhase(name, (prev) => ({ retry_count: prev.retry_count + 1 }));
    return doc.phases[name]!.retry_count;
  }

  /** Seed 004 FR-3: the phase failed after `retryCount` revisions. */
  markFailed(name: string, retryCount: number, error?: string): Promise<Metadata> {
    return this.updatePhase(name, {
      status: 'failed',
      retry_count: retryCount,
      ...(error === undefined ? {} : { error }),
    });
  }

  /** The first phase marked failed, in file order (later phases are skipped after it). */
  async failedPhase(): Promise<string | undefined> {
    const doc = await this.read();
    return Object.entries(doc.phases).find(([, p]) => p.status === 'failed')?.[0];
  }
}
