import type { Logger } from '../log/logger.ts';

/** The task states (docs/agent-runner.md). */
export type TaskState = 'PENDING' | 'PLANNING' | 'RUNNING' | 'VALIDATING' | 'COMPLETE' | 'FAILED';

/**
 * The transitions: a task
 * starts by planning (PENDING → PLANNING once its context is built) and fails
 * from PLANNING, RUNNING or VALIDATING. Both the run and AgentRunner mode use
 * this one table.
 */
export const TASK_TRANSITIONS: Readonly<Record<TaskState, readonly TaskState[]>> = {
  PENDING: ['PLANNING'],
  PLANNING: ['RUNNING', 'FAILED'],
  RUNNING: ['VALIDATING', 'FAILED'],
  VALIDATING: ['RUNNING', 'COMPLETE', 'FAILED'],
  COMPLETE: [],
  FAILED: [],
};

export interface Transition {
  from: TaskState;
  to: TaskState;
  reason: string;
  at: number;
}

export function canTransition(from: TaskState, to: TaskState): boolean {
  return TASK_TRANSITIONS[from].includes(to);
}

/**
 * The task state machine. Every transition is checked against the table
 * above and logged. `max_loops` bounds VALIDATING → RUNNING: the loop
 * counter counts those returns, and a validation that
 * leaves criteria open when the count has reached the limit fails the task.
 * With `max_loops: N` there are N returns and N + 1 validations, as in the
 * worker mode: both drive it through `driveRounds` (src/run/drive.ts).
 */
export class TaskStateMachine {
  private current: TaskState = 'PENDING';
  private loopCount = 0;
  readonly transitions: Transition[] = [];

  constructor(
    readonly maxLoops: number,
    private readonly logger: Logger,
    private readonly now: () => number,
  ) {}

  get state(): TaskState {
    return this.current;
  }

  get loops(): number {
    return this.loopCount;
  }

  get finished(): boolean {
    return this.current === 'COMPLETE' || this.current === 'FAILED';
  }

  to(next: TaskState, reason: string): void {
    if (!canTransition(this.current, next)) {
      throw new Error(`internal: the task cannot go from ${this.current} to ${next}`);
    }
    const transition = { from: this.current, to: next, reason, at: this.now() };
    this.transitions.push(transition);
    this.logger.info('state transition', { from: transition.from, to: next, reason });
    this.current = next;
  }

  /**
   * After a validation that left criteria open: true (and counted) when one
   * more VALIDATING → RUNNING return is allowed, false when `max_loops`
   * returns were made already.
   */
  countLoop(): boolean {
    if (this.loopCount >= this.maxLoops) return false;
    this.loopCount += 1;
    return true;
  }
}
