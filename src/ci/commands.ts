import { UsageError } from '../errors/errors.ts';
import { jobPlanOf, RUN_VERBS, type JobPlan } from '../commands/verbs.ts';

/**
 * How `mr-agent ci` carries out a command: its row of the verbs table
 * (src/commands/verbs.ts) says where the task text comes from and what the
 * job does with it. Only the verbs that start a run reach a job's run.
 */
export function commandPlan(command: string): JobPlan {
  const plan = jobPlanOf(command);
  if (!plan) {
    throw new UsageError(`\`${command}\` is not a command the agent carries out in a job`, {
      where: 'MR_AGENT_COMMAND',
      hint: `one of ${RUN_VERBS.join(', ')}.`,
    });
  }
  return plan;
}
