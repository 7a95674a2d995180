import type { Logger } from '../log/logger.ts';
import type { Clock } from '../core/clock.ts';
import { TaskStateMachine } from '../core/state-machine.ts';
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
  /** The task state machine the run pipeline drives too; it counts the VALIDATING → RUNNING returns (`max_loops`). */
  fsm: TaskStateMachine;
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
  /** The Task Note's section 6: risks, warnings, the failure reason. */
  notes: string[];
  failure?: string;
}

export function newTaskContext(
  task: TaskSpec,
  repoDir: string,
  clock: Clock,
  logger: Logger,
): TaskContext {
  const fsm = new TaskStateMachine(
    task.maxLoops,
    logger.child({ component: 'agent-runner', taskId: task.id }),
    () => clock.now(),
  );
  return {
    task,
    repoDir,
    fsm,
    startedAt: new Date(clock.now()).toISOString(),
    prdText: task.prd.text ?? '',
    prdSummary: '',
    acceptanceCriteria: [],
    metaCalls: [],
    workerRuns: [],
    notes: [],
  };
}
