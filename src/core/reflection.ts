import * as z from 'zod';
import { ActionPlan } from './plan.ts';

/**
 * The reflection reply: an evaluation, and when
 * `plan_revision_needed` a `plan_revision` whose `updated_action_plan` lists
 * the actions still to run.
 */
export const ReflectionBody = z.object({
  action_evaluated: z.string(),
  status: z.enum(['success', 'failure', 'partial']),
  evaluation: z.string().min(1),
  alignment_with_plan: z.string().default(''),
  issues_identified: z.array(z.string()),
  plan_revision_needed: z.boolean(),
});
export type ReflectionBody = z.infer<typeof ReflectionBody>;

export const PlanChange = z.object({
  type: z.enum(['add_action', 'remove_action', 'modify_action']),
  details: z.string(),
});

export const PlanRevision = z.object({
  reason: z.string().min(1),
  changes: z.array(PlanChange),
  updated_action_plan: ActionPlan,
});
export type PlanRevision = z.infer<typeof PlanRevision>;

/** The reflection's answer to comments people made during the run (only asked for when there were some). */
export const HumanFeedbackAnswer = z.object({
  replies: z
    .array(z.object({ comment_id: z.coerce.number().int(), reply: z.string() }))
    .default([]),
  stop_before_delivery: z.boolean().default(false),
});
export type HumanFeedbackAnswer = z.infer<typeof HumanFeedbackAnswer>;

export const ReflectionReply = z
  .object({
    phase: z.literal('reflection').default('reflection'),
    reflection: ReflectionBody,
    plan_revision: PlanRevision.nullable().default(null),
    comment: z.string().default(''),
    human_feedback: HumanFeedbackAnswer.optional(),
  })
  .superRefine((reply, ctx) => {
    if (reply.reflection.plan_revision_needed && !reply.plan_revision)
      ctx.addIssue({
        code: 'custom',
        path: ['plan_revision'],
        message: 'required when reflection.plan_revision_needed is true',
      });
  });
export type ReflectionReply = z.infer<typeof ReflectionReply>;
