/**
 * A run paused on a ❓ question, as the agent leaves it on a merge request of
 * the GitLab stand-in: the ❓ note and the progress note, both posted by the
 * bot and rendered by the real renderers (so their markers are the shipped ones).
 */
import { renderMarker } from '../../src/report/marker.ts';
import type { Language } from '../../src/messages/language.ts';
import { renderProgressNote } from '../../src/report/progress/render.ts';
import {
  finishRun,
  initialProgress,
  setPlan,
  setRelated,
  startPhase,
  updateItem,
} from '../../src/core/progress/updates.ts';
import type { MergeRequestRec, NoteRec } from '../../src/testkit/gitlab-server/index.ts';
import type { GitLabStandIn } from '../../src/testkit/gitlab-server/index.ts';

export interface PausedRun {
  question: NoteRec;
  progress: NoteRec;
  questionUrl: string;
  progressUrl: string;
}

export function postPausedRun(input: {
  standIn: GitLabStandIn;
  on: MergeRequestRec;
  botId: number;
  /** The MR's page as the API gives it (`web_url`). */
  mrUrl: string;
  pipelineId: number;
  jobId: number;
  language?: Language;
  /** Write the progress marker as an older release did (no phase, steps or question). */
  oldMarker?: boolean;
}): PausedRun {
  const { standIn, on, botId } = input;
  const question = standIn.model.addNote({
    on,
    authorId: botId,
    body: `${renderMarker({ kind: 'clarification', job: String(input.jobId), task: 'task-7', state: 'awaiting_answer' })}\n## ❓ Which branch should the fix target?`,
  });
  const questionUrl = `${input.mrUrl}#note_${question.id}`;
  const t0 = Date.UTC(2026, 0, 5, 9, 0, 0);
  let s = initialProgress({
    taskId: 'task-7',
    title: 'Fix the greeting',
    startedAt: t0,
    jobId: String(input.jobId),
    pipelineId: String(input.pipelineId),
    ...(input.language ? { language: input.language } : {}),
  });
  s = startPhase(s, 'planning', t0);
  s = setPlan(
    s,
    ['Read greet()', 'Trim the name', 'Test it'].map((d, i) => ({
      id: `task_${i + 1}`,
      description: d,
      status: 'pending' as const,
    })),
    t0,
  );
  s = updateItem(s, 'task_1', 'done');
  s = setRelated(s, 'question', questionUrl);
  s = finishRun(s, { state: 'awaiting_answer', summary: 'A question.', at: t0 + 60_000 });
  let body = renderProgressNote(s);
  if (input.oldMarker) {
    body = body.replace(/ phase=\S+ done=\d+ total=\d+ question=\d+/, '');
  }
  const progress = standIn.model.addNote({ on, authorId: botId, body });
  return { question, progress, questionUrl, progressUrl: `${input.mrUrl}#note_${progress.id}` };
}
