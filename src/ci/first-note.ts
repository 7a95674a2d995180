import type { Clock } from '../core/clock.ts';
import { initialProgress } from '../core/progress/updates.ts';
import { statePaths } from '../history/paths.ts';
import type { Logger } from '../log/logger.ts';
import type { Redactor } from '../log/redact.ts';
import { prepareNoteBody } from '../report/note-body.ts';
import { renderProgressNote } from '../report/progress/render.ts';
import { taskTitle } from '../task/title.ts';
import { noteTargetFor } from './note-target.ts';
import type { AcceptedRun, FirstNote } from './prepare.ts';
import { requestLanguage } from './request-language.ts';
import { threadsToAddress } from './review-threads.ts';
import { ciTaskId } from './task-id.ts';

export interface FirstNoteDeps {
  redactor: Redactor;
  logger: Logger;
  clock: Clock;
  /** Where the job log goes (a run without a merge request or issue keeps its notes there). */
  write(text: string): void;
}

/**
 * The task text of a request whose progress note can be posted at once: a
 * `run` command with an instruction of its own, on a merge request or issue,
 * not written in a review thread (whose task is made from the thread). Other
 * requests need the earlier runs' history or the threads first.
 */
async function plainRunTask(run: AcceptedRun): Promise<string | undefined> {
  const { request, context } = run;
  if (context.step === 'run' || request.command !== 'run') return undefined;
  if (request.target.kind === 'none') return undefined;
  const text = request.task.trim();
  if (!text) return undefined;
  if (request.noteId !== undefined && (await threadsToAddress(run, false))?.length)
    return undefined;
  return text;
}

/**
 * Posts the run's progress note as soon as the start checks accepted the
 * request, while the merge request's head is checked out and before the
 * run's own modules load: the requester sees within moments that the agent
 * is on it. The note is the run's first version without its notices,
 * rendered as the run's publisher renders it; the run then writes its own
 * first version over it (notices and all), as the run job of the two-step
 * flow does with the plan job's note. Undefined when the request needs more
 * than the start reads to name its task, or when GitLab did not take the
 * note (the run then creates it).
 */
export async function postFirstNote(
  run: AcceptedRun,
  deps: FirstNoteDeps,
): Promise<FirstNote | undefined> {
  const text = await plainRunTask(run);
  if (text === undefined) return undefined;
  const { context, config, request } = run;
  const target = request.target;
  if (target.kind === 'none') return undefined;
  const on = { type: target.kind, iid: target.iid };
  const page =
    target.kind === 'merge_request'
      ? await run.reads.mergeRequest(target.iid)
      : await run.reads.issue(target.iid);
  const taskId = ciTaskId(run);
  const title = taskTitle(text);
  const paths = statePaths(
    context.projectDir,
    config.state.directory,
    config.planning.history.directory,
  );
  const notes = noteTargetFor({
    gitlab: run.gitlab,
    projectId: run.project.id,
    request,
    webUrl: page.webUrl,
    stateDir: paths.stateDir,
    write: deps.write,
    known: { notes: () => run.reads.notes(on), selfId: run.bot.id },
  });
  const state = initialProgress({
    taskId,
    title,
    startedAt: deps.clock.now(),
    jobId: String(context.job.id),
    pipelineId: String(context.pipeline.id),
    ...(context.job.url ? { jobUrl: context.job.url } : {}),
    // decided as the run decides it, which then writes in the same language
    language: await requestLanguage({ ...run, mergeRequest: undefined }, {}),
    commandPrefix: config.trigger.command_prefix,
  });
  const body = prepareNoteBody(renderProgressNote(state), { redactor: deps.redactor });
  // one attempt: a note GitLab refuses now is created by the run, which retries its writes
  try {
    const note = await notes.createNote(body);
    return { noteId: note.id, taskId, title };
  } catch (error) {
    deps.logger.warn('the first progress note was not posted; the run posts it', {
      error: error instanceof Error ? error.message : String(error),
    });
    return undefined;
  }
}
