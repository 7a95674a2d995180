import type { Logger } from '../log/logger.ts';
import { canTransition, type TaskState } from '../core/state-machine.ts';
import type { TaskSpec } from '../task/task-yaml.ts';
import type { WorkerRunRecord } from '../workers/port.ts';
import type { CompletionAssessmentReply, NextActionReply } from './protocol.ts';

export type MetaCallType = 'plan_task' | 'next_action' | 'completion_assessment';

export interface AcceptanceCriterion {
  id: string;
  description: string;
  passed: boolean;
}

/** One meta-agent call as the Task Note shows it. */
export interface MetaCallLog {
  type: MetaCallType;
  timestamp: string;
  request: unknown;
  /** The validated reply; absent when the call failed. */
  response?: unknown;
  reasks: number;
  durationMs: number;
  error?: string;
}

export interface TestResult {
  command: string;
  exitCode: number | undefined;
  summary: string;
  rawOutput: string;
  durationMs: number;
}

/** The in-memory state of one AgentRunner task (docs/agent-runner.md). */
export interface TaskContext {
  task: TaskSpec;
  repoDir: string;
  state: TaskState;
  startedAt: string;
  finishedAt?: string;
  prdText: string;
  prdSummary: string;
  acceptanceCriteria: AcceptanceCriterion[];
  metaCalls: MetaCallLog[];
  workerRuns: WorkerRunRecord[];
  lastDecision?: NextActionReply;
  assessment?: CompletionAssessmentReply;
  testResult?: TestResult;
  /** VALIDATING → RUNNING transitions so far (bounded by `max_loops`). */
  loopCount: number;
  /** The Task Note's section 6: risks, warnings, the failure reason. */
  notes: string[];
  failure?: string;
}

export function newTaskContext(task: TaskSpec, repoDir: string, now: number): TaskContext {
  return {
    task,
    repoDir,
    state: 'PENDING',
    startedAt: new Date(now).toISOString(),
    prdText: task.prd.text ?? '',
    prdSummary: '',
    acceptanceCriteria: [],
    metaCalls: [],
    workerRuns: [],
    loopCount: 0,
    notes: [],
  };
}

/** Moves the task to `to`; an invalid transition is a bug in the runner and throws. */
export function transition(context: TaskContext, to: TaskState, logger: Logger): void {
  const from = context.state;
  if (!canTransition(from, to)) {
    throw new Error(`invalid task state transition ${from} → ${to}`);
  }
  context.state = to;
  logger.info('state transition', { component: 'agent-runner', taskId: context.task.id, from, to });
}
