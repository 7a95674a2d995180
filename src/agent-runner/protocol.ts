import * as z from 'zod';

/**
 * The meta protocol (docs/agent-runner.md): what the meta-agent answers to
 * each call, validated strictly; a failed validation is sent back to the
 * model by the LLM port (bounded re-asks). The decision's `action` is any
 * string here, so that an unknown action fails the task instead of being
 * re-asked: the protocol has only `run_worker` and `mark_complete`.
 */
export const PlanTaskReply = z.strictObject({
  type: z.literal('plan_task'),
  prd_summary: z.string().min(1),
  acceptance_criteria: z
    .array(z.strictObject({ id: z.string().min(1), description: z.string().min(1) }))
    .min(1)
    .max(20),
});
export type PlanTaskReply = z.infer<typeof PlanTaskReply>;

export const KNOWN_ACTIONS = ['run_worker', 'mark_complete'] as const;

export const WorkerCall = z.strictObject({
  worker_type: z.string().min(1),
  mode: z.literal('exec'),
  /** Bounded so it fits one command-line argument (Linux: 128 KiB). */
  prompt: z.string().min(1).max(60_000),
  model: z.string().min(1).nullish(),
});
export type WorkerCall = z.infer<typeof WorkerCall>;

export const NextActionReply = z
  .strictObject({
    type: z.literal('next_action'),
    decision: z.strictObject({ action: z.string().min(1), reason: z.string().min(1) }),
    worker_call: WorkerCall.nullish(),
  })
  .superRefine((reply, ctx) => {
    if (reply.decision.action === 'run_worker' && !reply.worker_call)
      ctx.addIssue({
        code: 'custom',
        path: ['worker_call'],
        message: 'worker_call is required when decision.action is "run_worker"',
      });
  });
export type NextActionReply = z.infer<typeof NextActionReply>;

/** `all_criteria_satisfied` is the explicit verdict the loop reads, not guessed from prose. */
export const CompletionAssessmentReply = z.strictObject({
  type: z.literal('completion_assessment'),
  all_criteria_satisfied: z.boolean(),
  summary: z.string().min(1),
  details: z.strictObject({
    passed_criteria: z.array(z.string()),
    remaining_risks: z.array(z.string()),
  }),
});
export type CompletionAssessmentReply = z.infer<typeof CompletionAssessmentReply>;
