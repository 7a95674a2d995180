import { z } from 'zod';

/**
 * The completion assessment (seed 002 meta §5, with the fields as JSON) plus
 * `all_criteria_satisfied`, which seed 002's loop reads but its schema lacks
 * (SPEC contracts).
 */
export const CompletionAssessment = z.object({
  type: z.literal('completion_assessment'),
  summary: z.string().min(1),
  details: z.object({
    passed_criteria: z.array(z.string()),
    remaining_risks: z.array(z.string()),
  }),
  all_criteria_satisfied: z.boolean(),
});
export type CompletionAssessment = z.infer<typeof CompletionAssessment>;
