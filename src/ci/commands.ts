import { UsageError } from '../errors/errors.ts';

/**
 * How `mr-agent ci` carries out each command of A1 (`/agent <command>`) and
 * `resume` (F4: a reply to a paused ❓ question). One row per command: where
 * the task text comes from and what the job does with it; a new command is
 * one more row.
 */
export interface CommandPlan {
  /** `instruction`: the text after the command; `last-request`: the last run's on this MR or issue. */
  task: 'instruction' | 'last-request';
  /** Fail when there is no earlier run to take the task from. */
  needsEarlierRun: boolean;
  /** `run`: the whole run; `plan-only`: stop after the plan; `approved-plan`: carry out the posted plan. */
  mode: 'run' | 'plan-only' | 'approved-plan';
}

export const CI_COMMANDS: Readonly<Record<string, CommandPlan>> = {
  run: { task: 'instruction', needsEarlierRun: false, mode: 'run' },
  plan: { task: 'instruction', needsEarlierRun: false, mode: 'plan-only' },
  approve: { task: 'last-request', needsEarlierRun: false, mode: 'approved-plan' },
  retry: { task: 'last-request', needsEarlierRun: true, mode: 'run' },
  // retry's row: the paused state comes back with the earlier `.mr-agent/`
  // (past-history.ts), and the replan hook reads the answers in the thread
  resume: { task: 'last-request', needsEarlierRun: true, mode: 'run' },
};

export function commandPlan(command: string): CommandPlan {
  const plan = CI_COMMANDS[command];
  if (!plan) {
    throw new UsageError(`\`${command}\` is not a command the agent carries out in a job`, {
      where: 'MR_AGENT_COMMAND',
      hint: `one of ${Object.keys(CI_COMMANDS).join(', ')}.`,
    });
  }
  return plan;
}
