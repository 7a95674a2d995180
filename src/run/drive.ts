import type { TaskStateMachine } from '../core/state-machine.ts';

/** What a validation found: done, more work for another round, or the task's end. */
export type Validated<End> = { kind: 'complete' } | { kind: 'loop' } | { kind: 'end'; end: End };

/**
 * The work of a task once its plan is ready, one round at a time: the run
 * pipeline's phases and AgentRunner mode's meta-agent each fill these in.
 * `validate` counts the rounds itself (`fsm.countLoop()`), where it knows
 * what an exhausted `max_loops` means for its task.
 */
export interface WorkRounds<End> {
  /** RUNNING: carries out the planned work; an end stops the task. */
  run(): Promise<End | undefined>;
  /** VALIDATING: the tests and the completion assessment. */
  validate(): Promise<Validated<End>>;
  /** The task is done: hands it over (delivery) and says how it ended, or goes `again`. */
  complete(): Promise<Completed<End>>;
}

/** `done`: the task is COMPLETE; `end`: it stopped before; `again`: there is more work after all. */
export type Completed<End> =
  { kind: 'done'; end: End } | { kind: 'end'; end: End } | { kind: 'again' };

/**
 * Drives the task state machine from a ready plan: PLANNING → RUNNING, then
 * RUNNING → VALIDATING → RUNNING … until a validation completes the task
 * (→ COMPLETE) or a round ends it. A thrown error ends it too; the caller
 * turns it into FAILED.
 */
export async function driveRounds<End>(
  fsm: TaskStateMachine,
  rounds: WorkRounds<End>,
): Promise<End> {
  fsm.to('RUNNING', 'plan ready');
  for (;;) {
    const stopped = await rounds.run();
    if (stopped !== undefined) return stopped;
    fsm.to('VALIDATING', 'planned actions done');
    const validated = await rounds.validate();
    if (validated.kind === 'end') return validated.end;
    if (validated.kind === 'complete') {
      const completed = await rounds.complete();
      if (completed.kind === 'end') return completed.end;
      if (completed.kind === 'done') {
        fsm.to('COMPLETE', 'all criteria satisfied');
        return completed.end;
      }
      fsm.to('RUNNING', 'comments before delivery changed the plan');
      continue;
    }
    fsm.to('RUNNING', 'criteria still open');
  }
}
