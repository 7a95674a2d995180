import * as z from 'zod';

/**
 * The completion assessment (its fields as JSON) plus
 * `all_criteria_satisfied`, the explicit verdict the VALIDATING → RUNNING
 * loop reads.
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
