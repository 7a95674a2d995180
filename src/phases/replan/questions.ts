/**
 * The decisions that involve more than a directive: a blocked replan
 * (escalation), a clarification and the low-confidence band that asks the
 * user whether to replan.
 */
import type { ReplanDirective } from '../../core/hooks.ts';
import { answersText, assumptionsText, isAffirmative, type Question } from './clarification.ts';
import { countReplan, type Override } from './control.ts';
import type { StoppedReplan } from './notify.ts';
import { escalate } from './escalation.ts';
import type { UnclearGoal } from '../../core/plan.ts';
import { bucketLimit, bucketOf, type ReplanLevel } from './levels.ts';
import { t } from '../../messages/catalog.ts';
import type { MessageKey } from '../../messages/en.ts';
import type { Ask, QuestionHost } from './ask.ts';
import type { Recorded } from './ledger.ts';
import { countersOf } from './state.ts';

const CONTINUE: ReplanDirective = { kind: 'continue' };

/** The replan type each level carries out (the notes name it in their language). */
const LEVEL_KINDS: Record<ReplanLevel, string> = {
  1: 'retry',
  2: 'partial_replan',
  3: 'action_regeneration',
  4: 'task_redecomposition',
  5: 'goal_revision',
};

/** A replan a limit stopped, in the progress note's history: why, and what the run does instead. */
function overridden(
  m: QuestionHost,
  ask: Ask,
  override: Override,
  then: StoppedReplan['then'],
): void {
  m.notifier.notCarriedOut({
    point: ask.checkpoint.point,
    decision: ask.decision,
    ...(override.facts ? { override: override.facts } : {}),
    then,
    at: m.now(),
  });
}

/**
 * A replan stopped by a limit or the loop detection: recorded as not
 * carried out, then the model is offered what is still allowed; without an
 * alternative the people are told and the run goes on with its current plan
 * (`auto_assume_on_no_response`) or stops for instructions.
 */
export async function handleBlocked(
  m: QuestionHost,
  ask: Ask,
  override: Override,
): Promise<ReplanDirective> {
  await m.keep(ask, override);
  if (ask.resolved.kind === 'clarify') {
    overridden(m, ask, override, { kind: 'continue' });
    return CONTINUE;
  }
  const choice = await escalate({
    llm: m.llmFor(ask.checkpoint),
    prompts: m.prompts,
    config: m.o.config,
    logger: m.o.logger,
    checkpoint: ask.checkpoint,
    decision: ask.decision,
    overrideReason: override.reason,
    counters: countersOf(m.state),
    action: ask.action,
    history: m.historyText(),
    ...(ask.signal ? { signal: ask.signal } : {}),
  });
  m.o.logger.info('replan escalated', { point: ask.checkpoint.point, choice: choice.kind });
  if (choice.kind === 'level') {
    overridden(m, ask, override, { kind: 'alternative', replan: LEVEL_KINDS[choice.level] });
    const resolved = {
      kind: 'replan',
      level: choice.level,
      bucket: bucketOf(ask.checkpoint.point, choice.level),
    } as const;
    const alternative: Ask = {
      ...ask,
      resolved,
      trigger: ask.trigger.replace(/L\d$/, `L${choice.level}`),
      started: m.now(),
    };
    return m.launch(alternative, choice.level, { notify: false });
  }
  if (choice.kind === 'continue') {
    overridden(m, ask, override, { kind: 'continue' });
    return CONTINUE;
  }
  const assume = m.o.config.planning.replanning.goal_understanding.auto_assume_on_no_response;
  overridden(m, ask, override, { kind: assume ? 'continue' : 'stop' });
  if (assume) return CONTINUE;
  return {
    kind: 'stop',
    reason: `A replan was needed but cannot be carried out: ${override.reason}.`,
  };
}

function questionOf(ask: Ask): Question {
  return {
    questions: ask.decision.clarification_questions,
    context: ask.decision.reasoning,
    assumptions: ask.decision.assumptions_to_make,
  };
}

/**
 * Asks, waits, and turns the outcome into a directive: the answers or the
 * assumptions become the planner's feedback (plan again from the goal); a
 * paused question ends the run awaiting an answer. `mustReplan`: there is no
 * plan to go on with, so no answer still plans again (on the assumptions).
 */
async function askAndFollow(
  m: QuestionHost,
  at: Recorded,
  question: Question,
  options: { mustReplan: boolean; signal: AbortSignal | undefined },
): Promise<{ directive: ReplanDirective | undefined; paused: boolean }> {
  const result = await m.clarifier.ask(question, {
    pausable: true,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  m.remember(`${at.checkpoint.point}: asked the user (${result.kind})`);
  if (result.kind === 'paused') {
    m.state.open_question = {
      note_id: result.noteId,
      asked_at: m.now(),
      point: at.checkpoint.point,
      questions: question.questions,
      assumptions: question.assumptions,
    };
    await m.save();
    return { directive: { kind: 'clarify', ...question, posted: true }, paused: true };
  }
  const reason =
    result.kind === 'answered'
      ? await answersText(m.prompts, question, result.answers)
      : question.assumptions.length > 0 || options.mustReplan
        ? await assumptionsText(m.prompts, question)
        : undefined;
  if (reason === undefined) return { directive: undefined, paused: false };
  return { directive: { kind: 'replan', from: 'goal_understanding', reason }, paused: false };
}

/** Asks the questions, waits, then plans again with the answers or the assumptions, or pauses. */
export async function handleClarify(m: QuestionHost, ask: Ask): Promise<ReplanDirective> {
  if (!m.canAsk) {
    await m.keep(ask, { kind: 'cannot_ask', reason: 'questions cannot be asked here' });
    return CONTINUE;
  }
  m.state.counters = countReplan(countersOf(m.state), ask.resolved, ask);
  await m.save();
  const followed = await askAndFollow(m, ask, questionOf(ask), {
    mustReplan: false,
    signal: ask.signal,
  });
  if (followed.directive?.kind === 'replan')
    return m.launch(ask, 5, { notify: false, directive: followed.directive, count: false });
  await m.record(m.nextId(), ask, {
    executed: true,
    result: followed.paused ? 'pending' : 'success',
  });
  await m.save();
  return followed.directive ?? CONTINUE;
}

/**
 * The planner found the goal unclear: its
 * questions go through the same clarification flow, within
 * `max_clarification_requests`. Over the limit, or where nothing can be
 * asked, the run ends with the planner's questions as before.
 */
export async function handleUnclearGoal(
  m: QuestionHost,
  unclear: UnclearGoal,
  signal: AbortSignal | undefined,
): Promise<ReplanDirective> {
  const max = bucketLimit(m.o.config, 'clarifications');
  const used = m.state.counters.buckets.clarifications ?? 0;
  if (!m.canAsk || used >= max) {
    m.o.logger.info('unclear goal not asked', { canAsk: m.canAsk, used, max });
    return CONTINUE;
  }
  const at: Recorded = {
    checkpoint: { point: 'goal_understanding' },
    decision: unclear,
    started: m.now(),
  };
  m.state.counters = countReplan(
    countersOf(m.state),
    { kind: 'clarify', bucket: 'clarifications' },
    { trigger: 'goal_understanding:unclear' },
  );
  await m.save();
  const question: Question = {
    questions: unclear.clarification_needed,
    context: unclear.message,
    assumptions: [],
  };
  const followed = await askAndFollow(m, at, question, { mustReplan: true, signal });
  await m.record(m.nextId(), at, {
    executed: true,
    result: followed.paused ? 'pending' : 'success',
  });
  await m.save();
  return followed.directive ?? CONTINUE;
}

/**
 * Confidence between `user_confirmation_threshold` and
 * `min_confidence_threshold`: the user is asked whether to replan;
 * "yes" carries it out, anything else (or no answer) keeps the plan. This
 * question never pauses the run.
 */
export async function handleConfirm(m: QuestionHost, ask: Ask): Promise<ReplanDirective> {
  if (ask.resolved.kind !== 'replan') return CONTINUE;
  const level = ask.resolved.level;
  const minutes = m.o.config.planning.replanning.goal_understanding.auto_assume_timeout_minutes;
  if (!m.canAsk || minutes <= 0) {
    await m.keep(ask, {
      kind: 'cannot_ask',
      reason: `confidence ${Math.round(ask.decision.confidence * 100)}% is below min_confidence_threshold and the user cannot be asked here`,
    });
    return CONTINUE;
  }
  const buckets = { ...m.state.counters.buckets };
  buckets.clarifications = (buckets.clarifications ?? 0) + 1;
  m.state.counters = { ...m.state.counters, buckets };
  await m.save();
  // the question is the agent's own text: in the notes' language
  const language = m.clarifier.language;
  const question: Question = {
    questions: [
      t(language, 'confirm.question', {
        replan: t(language, `replan.kind.${LEVEL_KINDS[level]}` as MessageKey),
        confidence: `${Math.round(ask.decision.confidence * 100)}%`,
      }),
    ],
    context: ask.decision.reasoning,
    assumptions: [t(language, 'confirm.keep')],
  };
  const result = await m.clarifier.ask(question, {
    pausable: false,
    ...(ask.signal ? { signal: ask.signal } : {}),
  });
  if (result.kind === 'answered' && isAffirmative(result.answers[0]!.body))
    return m.launch(ask, level);
  await m.keep(ask, {
    kind: 'low_confidence',
    reason:
      result.kind === 'answered'
        ? 'the user did not confirm the replan'
        : 'nobody confirmed the replan: the current plan is kept',
  });
  return CONTINUE;
}
