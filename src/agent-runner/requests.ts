import { tail } from '../core/shell-port.ts';
import type { TaskContext } from './context.ts';

/**
 * What the meta-agent sees for each call: a summary of
 * the TaskContext, never the whole of it. Output is cut to its tail.
 */
const PRD_CHARS = 8000;
const OUTPUT_TAIL_CHARS = 2000;
const RUNS_SHOWN = 5;

function taskSummary(context: TaskContext) {
  const { task } = context;
  return {
    id: task.id,
    title: task.title,
    ...(task.description ? { description: task.description } : {}),
    ...(context.prdSummary ? { prd_summary: context.prdSummary } : {}),
    prd_text: tail(context.prdText, PRD_CHARS),
    ...(task.suggestedImpl ? { suggested_impl: task.suggestedImpl } : {}),
    ...(task.test ? { test_command: task.test.command } : {}),
  };
}

function criteria(context: TaskContext) {
  return context.acceptanceCriteria.map(({ id, description, passed }) => ({
    id,
    description,
    passed,
  }));
}

function testResult(context: TaskContext) {
  const result = context.testResult;
  if (!result) return null;
  return {
    command: result.command,
    exit_code: result.exitCode ?? null,
    summary: result.summary,
    output_tail: tail(result.rawOutput, OUTPUT_TAIL_CHARS),
  };
}

export function planTaskRequest(context: TaskContext, workerKind: string) {
  return { type: 'plan_task', task: taskSummary(context), worker: { kind: workerKind } };
}

export function nextActionRequest(context: TaskContext, workerKind: string) {
  const last = context.workerRuns.at(-1);
  return {
    type: 'next_action',
    task: taskSummary(context),
    acceptance_criteria: criteria(context),
    last_worker_result: last
      ? {
          exists: true,
          exit_code: last.exitCode ?? null,
          summary: last.summary,
          ...(last.error ? { error: last.error } : {}),
          stdout_tail: tail(last.rawOutput, OUTPUT_TAIL_CHARS),
        }
      : { exists: false },
    last_assessment: context.assessment
      ? {
          summary: context.assessment.summary,
          passed_criteria: context.assessment.details.passed_criteria,
          remaining_risks: context.assessment.details.remaining_risks,
        }
      : null,
    test_result: testResult(context),
    state: context.fsm.state,
    loop: { count: context.fsm.loops, max: context.task.maxLoops },
    worker: { kind: workerKind },
  };
}

export function completionRequest(context: TaskContext) {
  return {
    type: 'completion_assessment',
    task: taskSummary(context),
    acceptance_criteria: criteria(context),
    decision: context.lastDecision?.decision ?? null,
    worker_runs: context.workerRuns.slice(-RUNS_SHOWN).map((run) => ({
      id: run.id,
      exit_code: run.exitCode ?? null,
      summary: run.summary,
      ...(run.error ? { error: run.error } : {}),
      output_tail: tail(run.rawOutput, OUTPUT_TAIL_CHARS),
    })),
    test_result: testResult(context),
    state: context.fsm.state,
  };
}
