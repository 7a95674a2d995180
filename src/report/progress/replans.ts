/**
 * The replans of a run in the progress note's folded history: when each
 * started, completed or failed. They get no note of their own — one
 * progress note per run — only the 🔁 decision note (`notes/replan-note.ts`).
 */
import type { MessageKey } from '../../messages/en.ts';
import { formatClockTime, formatDuration } from '../../messages/format.ts';
import type { ProgressState, ReplanEvent } from '../../core/progress/model.ts';
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

function eventLine(e: ReplanEvent, v: Voice): string {
  const time = formatClockTime(e.at, v.language);
  const duration = formatDuration(e.durationMs ?? 0, v.language);
  switch (e.event) {
    case 'started': {
      const point = checkpointName(v, e.point);
      if (!e.kind) return `${EMOJI.revised} ${v.m('replanLog.startedAt', { time, point })}`;
      const kind = NAMED_REPLAN_KINDS.has(e.kind)
        ? v.m(`replan.kind.${e.kind}` as MessageKey)
        : e.kind.replace(/[_.]+/g, ' ');
      return `${EMOJI.revised} ${v.m('replanLog.started', { time, point, kind })}`;
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
