import type { Checkpoint, HumanComment } from '../../core/conversation.ts';
import type { ActionRecord } from '../../core/records.ts';
import type { HumanFeedbackAnswer } from '../../core/reflection.ts';
import type { RunContext } from '../../core/run-context.ts';
import { CONTINUE, type StepResult } from '../../core/run-end.ts';
import { t } from '../../messages/catalog.ts';
import { commentLanguage, runLanguage, type Language } from '../../messages/language.ts';
import { feedbackAction, replaceRemaining } from '../plan/state.ts';
import { reflectAndRevise } from '../reflect/step.ts';

/**
 * The run as a conversation: at each checkpoint it hears the comments people
 * made since the last one (src/core/conversation.ts), feeds them to a
 * reflection as human feedback — which may revise the remaining actions or
 * ask the run not to push — and answers each comment in its own thread, in
 * the comment's language (a fixed `notes.language` wins), with what it will do.
 */
export async function hear(ctx: RunContext, checkpoint: Checkpoint): Promise<HumanComment[]> {
  const port = ctx.deps.conversation;
  return port ? port.read(checkpoint) : [];
}

/** The feedback becomes the next action when no reflection could take it in. */
function queueComments(ctx: RunContext, comments: readonly HumanComment[]): void {
  const text = comments.map((c) => `@${c.author.username}: ${c.text}`).join('\n');
  const action = feedbackAction(ctx, text);
  const remaining = ctx.state.queue.map((s) => s.action);
  replaceRemaining(
    ctx,
    {
      execution_order: [...new Set([action.task_id, ...remaining.map((a) => a.task_id)])],
      actions: [action, ...remaining],
    },
    'Taking in comments made during the run.',
    'reflection',
  );
}

/**
 * What the run says back to one comment: in the comment's language (or the
 * run's, when the comment has no words to tell by), or the fixed `notes.language`.
 */
export function answerText(
  comment: HumanComment,
  answer: HumanFeedbackAnswer | undefined,
  alone: boolean,
  language: Language,
): string {
  const replies = answer?.replies ?? [];
  // one comment and one reply belong together even when the model got the id wrong
  const mine =
    replies.find((r) => r.comment_id === comment.id) ??
    (alone && replies.length === 1 ? replies[0] : undefined);
  const what = mine?.reply.trim();
  const noted = what ? t(language, 'conversation.noted', { what }) : undefined;
  if (answer?.stop_before_delivery && (alone || !what)) {
    return [t(language, 'conversation.stopBeforeDelivery'), noted].filter(Boolean).join('\n\n');
  }
  return noted ?? t(language, 'conversation.notedGeneric');
}

/**
 * Heeds the comments heard at a checkpoint: one reflection on them (and on
 * the action just done, if any), then one answer per comment. Human feedback
 * does not use up the plan's revision budget.
 */
export async function heed(
  ctx: RunContext,
  comments: readonly HumanComment[],
  record?: ActionRecord,
): Promise<StepResult & { revised?: boolean }> {
  if (comments.length === 0) return CONTINUE;
  const port = ctx.deps.conversation!;
  const before = ctx.state.reflections.length;
  const result = await reflectAndRevise(
    ctx,
    { trigger: 'feedback', comments, ...(record ? { record } : {}) },
    { countsAsRevision: false },
  );
  const reply = ctx.state.reflections.length > before ? ctx.state.reflections.at(-1) : undefined;
  if (!reply) queueComments(ctx, comments);
  const answer = reply?.human_feedback ?? undefined;
  if (answer?.stop_before_delivery) {
    ctx.state.stopBeforeDelivery = { by: comments.at(-1)!.author.username };
    ctx.logger.info('asked to stop before delivery', { by: ctx.state.stopBeforeDelivery.by });
  }
  for (const comment of comments) {
    await port.answer(
      comment,
      answerText(
        comment,
        answer,
        comments.length === 1,
        commentLanguage(ctx.config.notes.language, comment.text, runLanguage(ctx)),
      ),
    );
  }
  return result.kind === 'end'
    ? result
    : { ...CONTINUE, revised: !reply || result.revised === true };
}

/** The patch note's reason when someone asked the run not to push, in the notes' language. */
export function stopReason(ctx: RunContext): string | undefined {
  const asked = ctx.state.stopBeforeDelivery;
  if (!asked) return undefined;
  const language = runLanguage(ctx);
  return t(language, 'conversation.stopReason', { user: asked.by });
}
