import type { Note } from '../core/gitlab-port.ts';
import { parseMarker } from '../report/marker.ts';
import { messages } from '../messages/catalog.ts';
import type { Language } from '../messages/language.ts';
import { inlineCode, link } from '../report/markdown.ts';

/**
 * `/agent pause`, as GitLab allows it: a
 * job cannot be sent a message and a cancelled job may be killed at any
 * moment, so the request is left where the running job looks — a ⏸ award by
 * the agent's own user on the run's progress note. The job asks for it before
 * each action (src/phases/execute/pause.ts) and ends as `paused`; `/agent
 * resume` starts a run that takes the paused run's plan over.
 */
export const PAUSE_EMOJI = 'pause_button';

/** The running run's progress note: the agent's newest one whose marker says `running`. */
export function runningProgressNote(
  notes: readonly Note[],
  selfId: number | undefined,
): Note | undefined {
  for (let i = notes.length - 1; i >= 0; i--) {
    const note = notes[i]!;
    if (note.system || (selfId !== undefined && note.author.id !== selfId)) continue;
    const marker = parseMarker(note.body);
    if (marker?.kind !== 'progress') continue;
    return marker.state === 'running' ? note : undefined;
  }
  return undefined;
}

/**
 * Whether the note carries a ⏸ that asks for a pause: the agent's own (put
 * there by `/agent pause`) or one a member with the access level to command
 * the agent clicked on the note; anyone else's ⏸ is only a reaction.
 */
export async function pauseAwarded(
  awards: ReadonlyArray<{ name: string; user: { id: number } }>,
  who: { selfId: number; mayCommand(userId: number): Promise<boolean> },
): Promise<boolean> {
  const users = new Set(awards.filter((a) => a.name === PAUSE_EMOJI).map((a) => a.user.id));
  if (users.has(who.selfId)) return true;
  for (const user of users) if (await who.mayCommand(user)) return true;
  return false;
}

export function pauseReply(
  kind: 'asked' | 'no-note' | 'nothing',
  options: { prefix: string; language: Language; noteUrl?: string | undefined },
): string {
  const m = messages(options.language);
  const command = (verb: string) => inlineCode(`${options.prefix} ${verb}`);
  if (kind === 'nothing') return m('pause.nothing');
  if (kind === 'no-note') return m('pause.noNote', { stop: command('stop') });
  const label = m('pause.progressNote');
  const note = options.noteUrl ? link(label, options.noteUrl) : label;
  return m('pause.asked', { note, resume: command('resume') });
}
