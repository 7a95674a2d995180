/**
 * The replans of a run in the progress note's folded history: when each
 * started (with the model's reasoning), completed or failed, and the ones a
 * limit stopped, with why and what the run did instead. They get no note of
 * their own: one progress note per run.
 */
import type { MessageKey } from '../../messages/en.ts';
import { formatClockTime, formatDuration } from '../../messages/format.ts';
import type { ProgressState, ReplanEvent, ReplanOverrideFacts } from '../../core/progress/model.ts';
import { inlineCode, oneLine, safeProse } from '../markdown.ts';
import { EMOJI } from '../vocabulary.ts';
import { checkpointName } from './checkpoints.ts';
import type { Voice } from './headline.ts';

/** The replan kinds the catalog names (`replan.kind.*`); others show as code. */
export const NAMED_REPLAN_KINDS: ReadonlySet<string> = new Set([
  'retry',
  'partial_replan',
  'action_regeneration',
  'task_redecomposition',
  'goal_revision',
  'full_replan',
  'clarification_request',
]);

function kindName(kind: string, v: Voice): string {
  return NAMED_REPLAN_KINDS.has(kind)
    ? v.m(`replan.kind.${kind}` as MessageKey)
    : inlineCode(kind.replace(/[_.]+/g, ' '));
}

/** The model's own reasoning after a decision, on one short line. */
function reasoning(e: ReplanEvent): string {
  const text = oneLine(safeProse(e.reasoning ?? ''), 240);
  return text ? ` — ${text}` : '';
}

function whyNot(o: ReplanOverrideFacts | undefined, v: Voice): string {
  if (!o || o.kind === 'other') return v.m('replanWhy.other');
  return v.m(`replanWhy.${o.kind}`, {
    used: o.used ?? 0,
    limit: o.limit ?? 0,
    option: inlineCode(o.option ?? '?'),
  });
}

function instead(then: ReplanEvent['then'], v: Voice): string {
  if (then?.kind === 'stop') return v.m('replanThen.stop');
  if (then?.kind === 'alternative')
    return v.m('replanThen.alternative', { replan: kindName(then.replan, v) });
  return v.m('replanThen.continue');
}

function eventLine(e: ReplanEvent, v: Voice): string {
  const time = formatClockTime(e.at, v.language);
  const duration = formatDuration(e.durationMs ?? 0, v.language);
  switch (e.event) {
    case 'started': {
      const point = checkpointName(v, e.point);
      if (!e.kind)
        return `${EMOJI.revised} ${v.m('replanLog.startedAt', { time, point })}${reasoning(e)}`;
      const kind = kindName(e.kind, v);
      return `${EMOJI.revised} ${v.m('replanLog.started', { time, point, kind })}${reasoning(e)}`;
    }
    case 'not_carried_out': {
      const params = {
        time,
        point: checkpointName(v, e.point),
        why: whyNot(e.override, v),
        then: instead(e.then, v),
      };
      const line = e.kind
        ? v.m('replanLog.notCarriedOut', { ...params, kind: kindName(e.kind, v) })
        : v.m('replanLog.notCarriedOutAt', params);
      return `${EMOJI.skipped} ${line}${reasoning(e)}`;
    }
    case 'completed':
      return `${EMOJI.done} ${v.m('replanLog.completed', { time, duration })}`;
    case 'failed':
      return `${EMOJI.failed} ${v.m('replanLog.failed', { time, duration })}`;
  }
}

/** `#### Replans` and one line per event, oldest first; nothing when no replan ran. */
export function replanHistory(s: ProgressState, v: Voice): string[] {
  const events = s.replanLog ?? [];
  if (events.length === 0) return [];
  return ['', `#### ${v.m('replanLog.heading')}`, '', ...events.map((e) => `- ${eventLine(e, v)}`)];
}
