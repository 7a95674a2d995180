/**
 * The replan state of a task, kept in
 * `<state dir>/replan/<key>.json` so that it survives a pause: the counters
 * of every limit, the replan in flight with the plan before it, the latest
 * decision, and an open question to the people on the request. The state
 * folder is the job artifact a later pipeline restores, so a run
 * resumed by a reply in the ❓ thread continues with the same counters.
 */
import path from 'node:path';
import * as z from 'zod';
import {
  safeFileName,
  type OpenDocument,
  type StoredDocument,
} from '../../core/stored-document.ts';
import { emptyCounters, type ReplanCounters } from './control.ts';
import { BUCKETS } from './levels.ts';
import { REPLAN_POINTS } from './schema.ts';

const Count = z.number().int().min(0);
const JsonObject = z.record(z.string(), z.unknown());

export const CountersSchema = z.object({
  total: Count,
  buckets: z.partialRecord(z.enum(BUCKETS as [string, ...string[]]), Count),
  retries: z.record(z.string(), Count),
  triggers: z.record(z.string(), Count),
});

/** A question posted to the people on the request and not answered yet. */
export const OpenQuestion = z.object({
  note_id: z.string(),
  asked_at: z.number(),
  point: z.enum(REPLAN_POINTS),
  questions: z.array(z.string()),
  assumptions: z.array(z.string()),
});
export type OpenQuestion = z.infer<typeof OpenQuestion>;

/** A replan handed to the run and not yet seen through (its result is recorded at the next checkpoint). */
export const InFlight = z.object({
  replan_id: z.string(),
  point: z.enum(REPLAN_POINTS),
  decided_at: z.number(),
  decision: JsonObject,
  confidence: z.number(),
  plan_before: JsonObject.optional(),
});
export type InFlight = z.infer<typeof InFlight>;

export const ReplanStateSchema = z.object({
  version: z.literal(1),
  /** `running` while a run goes on; `awaiting_answer` and `paused` are resumed by the next run. */
  status: z.enum(['running', 'awaiting_answer', 'paused', 'finished']),
  counters: CountersSchema,
  /** Decisions requested so far (numbers the replan ids). */
  decisions: Count,
  in_flight: InFlight.optional(),
  latest_decision: JsonObject.optional(),
  open_question: OpenQuestion.optional(),
  updated_at: z.number(),
});
export type ReplanState = z.infer<typeof ReplanStateSchema>;

export function freshState(now: number): ReplanState {
  return {
    version: 1,
    status: 'running',
    counters: emptyCounters(),
    decisions: 0,
    updated_at: now,
  };
}

export function countersOf(state: ReplanState): ReplanCounters {
  return state.counters as ReplanCounters;
}

/** Whether a loaded state belongs to a paused run that this run continues. */
export function isResumable(state: ReplanState | undefined): boolean {
  return state?.status === 'awaiting_answer' || state?.status === 'paused';
}

/** `<state dir>/replan/<key>.json`; the key is the MR/issue (`12!42`) or the task id. */
export function replanStateFile(stateDir: string, key: string): string {
  return path.join(stateDir, 'replan', `${safeFileName(key)}.json`);
}

export function replanStateStore(
  file: string,
  open: OpenDocument,
  now: () => number,
): ReplanStateStore {
  return open(file, ReplanStateSchema, () => freshState(now()));
}
export type ReplanStateStore = StoredDocument<ReplanState>;
