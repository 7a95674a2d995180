import { parseMarker } from '../report/marker.ts';
import type { CiRequestRecord, RestoredHistory } from './past-history.ts';
import type { PreparedRun } from './prepare.ts';

/**
 * Which earlier run `/agent approve` answers: the run whose
 * progress note starts the thread the approve comment replies in, else the
 * newest `/agent plan` run on the merge request or issue. Its plan is carried
 * out and its request is the task — never the plan of some later full run.
 */
export async function approvedRun(
  run: Pick<PreparedRun, 'request' | 'reads' | 'bot'>,
  restored: Pick<RestoredHistory, 'requests'>,
): Promise<CiRequestRecord | undefined> {
  const inThread = await threadRunTask(run);
  const answered = inThread && restored.requests.find((r) => r.task.id === inThread);
  return answered || restored.requests.find((r) => r.request.command === 'plan');
}

/** The task of the agent's progress note that starts the approve comment's thread. */
async function threadRunTask(
  run: Pick<PreparedRun, 'request' | 'reads' | 'bot'>,
): Promise<string | undefined> {
  const { target, noteId } = run.request;
  if (noteId === undefined || target.kind === 'none') return undefined;
  const threads = await run.reads.discussions({ type: target.kind, iid: target.iid });
  const thread = threads.find((d) => d.notes.some((n) => n.id === noteId));
  const first = thread?.notes[0];
  if (!first || first.id === noteId || first.author.id !== run.bot.id) return undefined;
  const marker = parseMarker(first.body);
  return marker?.kind === 'progress' ? marker.task : undefined;
}
