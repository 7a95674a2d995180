import { verify } from './index.ts';
import type { RunContext } from '../../core/run-context.ts';
import { directiveEnd, replanAllowed, replanDuringRun } from '../plan/step.ts';
import { reflectAndRevise } from '../reflect/step.ts';
import type { RunEnd } from '../../core/run-end.ts';
import { runView } from '../../core/run-view.ts';

export type Verified = { kind: 'complete' } | { kind: 'loop' } | { kind: 'end'; end: RunEnd };

/**
 * VALIDATING: tests and completion assessment, the final
 * evaluation checkpoint (docs/replanning.md), then COMPLETE, or another RUNNING round
 * with actions for the open criteria while `max_loops` allows.
 */
export async function verificationPhase(ctx: RunContext): Promise<Verified> {
  const { state, deps } = ctx;
  const result = await verify(ctx);
  if (result.test) state.tests.push(result.test);
  state.assessment = result.assessment;
  await deps.history.saveExecution({
    action_id: 'verification',
    status: result.complete ? 'success' : 'error',
    summary: result.assessment.summary,
    ...(result.test ? { tool: result.test.command, duration_ms: result.test.durationMs } : {}),
  });
  deps.reporter.comment(result.assessment.summary);
  const directive = await ctx.hooks.replan.decide(
    {
      point: 'final_evaluation',
      plan: state.plan!,
      assessment: result.assessment,
      tests: state.tests,
      run: runView(ctx),
    },
    ctx.signal,
  );
  const stop = directiveEnd(directive);
  if (stop) return { kind: 'end', end: stop };
  const replan = directive.kind === 'replan' && replanAllowed(ctx);
  if (result.complete && !replan) return { kind: 'complete' };
  if (!ctx.fsm.countLoop()) {
    return {
      kind: 'end',
      end: {
        state: 'FAILED',
        reason: 'max_loops',
        summary: `Acceptance criteria were still open after ${ctx.fsm.loops + 1} validation rounds (runner.max_loops = ${ctx.fsm.maxLoops} returns to execution). ${result.assessment.summary}`,
      },
    };
  }
  if (replan) {
    const replanned = await replanDuringRun(
      ctx,
      directive.reason,
      directive.from,
      directive.summary,
    );
    return replanned.kind === 'end' ? replanned : { kind: 'loop' };
  }
  const revised = await reflectAndRevise(
    ctx,
    { trigger: 'validation', assessment: result.assessment },
    { countsAsRevision: false },
  );
  if (revised.kind === 'end') return revised;
  if (!revised.revised || state.queue.length === 0)
    return {
      kind: 'end',
      end: {
        state: 'FAILED',
        reason: 'no_further_work',
        summary: `Acceptance criteria are still open and the reflection proposed no further actions. ${result.assessment.summary}`,
      },
    };
  return { kind: 'loop' };
}
