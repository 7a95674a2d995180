/**
 * What every note besides the progress note needs: the hidden marker's task,
 * job and pipeline, and the voice — the language, the command prefix and
 * who asked (for an @mention).
 */
import type { NoteKind } from '../marker.ts';
import { renderMarker } from '../marker.ts';
import type { MessageBlock } from '../../messages/catalog.ts';
import type { Language } from '../../messages/language.ts';
import { voiceOf, type Voice } from '../progress/headline.ts';

export interface NoteContext {
  taskId: string;
  jobId?: string;
  pipelineId?: string;
  /** The job's page, linked from the notes. */
  jobUrl?: string;
  /** The notes' language (default English). */
  language?: Language;
  /** The comment prefix that starts a run (default `/agent`). */
  commandPrefix?: string;
  /** The username of who asked, mentioned where an answer is needed. */
  requester?: string;
  /** The run's title (what was asked), shown in the notes' headings. */
  title?: string;
}

/** ` · <title>` for a heading, when the title is known. */
export function titleSuffix(context: NoteContext): string {
  const title = context.title?.replace(/\s+/g, ' ').trim().slice(0, 200);
  return title ? ` · ${title.replace(/<!--/g, '&lt;!--')}` : '';
}

export function markerFor(kind: NoteKind, context: NoteContext, state?: string): string {
  return renderMarker({
    kind,
    task: context.taskId,
    job: context.jobId,
    pipeline: context.pipelineId,
    state,
  });
}

/** The note's voice: its language and command prefix, with the note kind's own texts. */
export function contextVoice<K extends string = never>(
  context: NoteContext,
  block?: MessageBlock<K>,
): Voice<K> {
  return voiceOf({ language: context.language, commandPrefix: context.commandPrefix }, block);
}

/** `@dana, ` when the requester is known (GitLab then adds a To-Do for them). */
export function mention(context: NoteContext): string {
  const name = context.requester?.replace(/[^\w.-]/g, '');
  return name ? `@${name}, ` : '';
}

/** A replan checkpoint or phase in words; lives with the progress note, which names them too. */
export { checkpointName } from '../progress/checkpoints.ts';
