/**
 * The JSONL planning-history entries.
 * One JSON object per line, each with `type` and an ISO `timestamp`. The
 * plan contents are the LLM shapes validated where they are produced; here
 * they are only required to be objects. Unknown fields stay in the file (appends never rewrite old lines) but are not returned.
 */
import * as z from 'zod';

const JsonObject = z.record(z.string(), z.unknown());

const base = {
  timestamp: z.iso.datetime(),
  task_id: z.string().min(1),
  /** The MR or issue the task belongs to, e.g. `12!42` (MR) or `12#7` (issue). */
  issue_id: z.string().optional(),
  run_id: z.string().optional(),
};

/** The plan was taken over from an earlier run of the task (or of the retried request). */
export const PlanReuse = z.object({
  task_id: z.string().min(1),
  planned_at: z.iso.datetime(),
  revisions: z.number().int().min(0),
  reflections: z.number().int().min(0),
});

export const PlanEntry = z.object({
  type: z.literal('plan'),
  ...base,
  plan: JsonObject,
  reused_from: PlanReuse.optional(),
});
export type PlanEntry = z.infer<typeof PlanEntry>;

export const RevisionEntry = z.object({
  type: z.literal('revision'),
  ...base,
  revision: z.number().int().min(1),
  reason: z.string(),
  changes: z.array(z.unknown()),
  updated_plan: JsonObject,
  reflection: JsonObject.optional(),
});
export type RevisionEntry = z.infer<typeof RevisionEntry>;

export const ReflectionEntry = z.object({
  type: z.literal('reflection'),
  ...base,
  evaluation: JsonObject,
});
export type ReflectionEntry = z.infer<typeof ReflectionEntry>;

/** One LLM replan decision, whether it was carried out, and how it went. */
export const ReplanDecisionEntry = z.object({
  type: z.literal('replan_decision'),
  ...base,
  replan_id: z.string().min(1),
  phase: z.string(),
  llm_decision: JsonObject,
  confidence: z.number(),
  executed: z.boolean(),
  override_reason: z.string().nullable(),
  result: z.enum(['success', 'failure', 'skipped', 'pending']),
  duration_ms: z.number().min(0),
  plan_before: JsonObject.optional(),
  plan_after: JsonObject.optional(),
});
export type ReplanDecisionEntry = z.infer<typeof ReplanDecisionEntry>;

/** One executed action. */
export const ExecutionEntry = z.object({
  type: z.literal('execution'),
  ...base,
  action_id: z.string(),
  status: z.enum(['success', 'error', 'skipped']),
  summary: z.string(),
  tool: z.string().optional(),
  duration_ms: z.number().min(0).optional(),
});
export type ExecutionEntry = z.infer<typeof ExecutionEntry>;

export const HistoryEntry = z.discriminatedUnion('type', [
  PlanEntry,
  RevisionEntry,
  ReflectionEntry,
  ReplanDecisionEntry,
  ExecutionEntry,
]);
export type HistoryEntry = z.infer<typeof HistoryEntry>;
export type HistoryEntryType = HistoryEntry['type'];

/** Fields the store fills in itself. */
type Filled = 'type' | 'timestamp' | 'task_id' | 'issue_id' | 'run_id';
export type ReplanDecisionInput = Omit<ReplanDecisionEntry, Filled>;
export type ExecutionInput = Omit<ExecutionEntry, Filled>;
