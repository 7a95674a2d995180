import type { Config } from '../config/options.ts';
import type { GitLabPort, Noteable } from '../core/gitlab-port.ts';
import { renderMarker } from '../report/marker.ts';
import { resolveLanguage, type Language } from '../messages/language.ts';
import { inlineCode } from '../report/markdown.ts';
import { hintText } from '../report/progress/error-words.ts';
import { voiceOf } from '../report/progress/headline.ts';
import { describeError } from '../errors/catalog.ts';
import { CancelledError, isAgentError } from '../errors/errors.ts';
import { GitLabNoteTarget } from '../gitlab/note-target.ts';
import { statePaths } from '../history/paths.ts';
import type { Logger } from '../log/logger.ts';
import type { Redactor } from '../log/redact.ts';
import { postNote, prepareNoteBody } from '../report/note-body.ts';
import { buildRunResult, writeResultFile } from '../report/result-file.ts';
import type { CommandRequest } from '../commands/note-rules.ts';
import { systemClock } from '../core/clock.ts';
import { startReporting } from '../run/reporting/index.ts';
import { taskFromText } from '../task/task-yaml.ts';
import { isConfidentialTarget } from './confidential.ts';
import type { CiContext } from './context.ts';
import { readHandoff, type CiHandoff } from './handoff.ts';
import type { FirstNote } from './prepare.ts';
import { AdoptingNoteTarget } from './note-target.ts';
import type { CiRequest } from './request.ts';

/**
 * A job that fails before its run has a progress note: an invalid
 * `.mr-agent.yml` on the default branch, a missing merge request, a GitLab
 * that refuses or does not answer, a worker CLI missing from the image. The
 * requester still hears of it — a reply in the command's thread (or a note on
 * the merge request or issue) saying what went wrong and what to do, where
 * GitLab lets one be written — and `result.json` records it for machines.
 * A requester without the role gets nothing — no 👀, no run, no note: the
 * job tells nothing to someone who may not command the agent.
 */
export interface EarlyFailure {
  context: CiContext;
  /** The comment request of a TRIGGER_PAYLOAD, when there was one. */
  payload: CommandRequest | undefined;
  gitlab: GitLabPort;
  /** The configuration from the environment (the repository's may be what failed). */
  config: Config;
  redactor: Redactor;
  logger: Logger;
  error: unknown;
  exitCode: number;
  /** A termination signal ended the job (the process exits 128 + its number). */
  cancelled?: boolean;
  /** The progress note the job posted before its run was composed (./first-note.ts). */
  firstNote?: FirstNote | undefined;
}

/** Where the requester asked: the merge request or issue, and the comment's thread. */
function whereAsked(
  context: CiContext,
  payload: CommandRequest | undefined,
  handedOver: CiRequest | undefined,
): { on: Noteable; replyTo?: string } | undefined {
  if (handedOver) {
    const target = handedOver.target;
    if (target.kind === 'none') return undefined;
    return {
      on: { type: target.kind, iid: target.iid },
      ...(handedOver.noteId ? { replyTo: String(handedOver.noteId) } : {}),
    };
  }
  if (payload) {
    return {
      on: { type: payload.target.kind, iid: payload.target.iid },
      replyTo: payload.discussionId ?? String(payload.noteId),
    };
  }
  const trigger = context.trigger;
  if (trigger.kind !== 'note' && trigger.kind !== 'manual') return undefined;
  if (trigger.target.kind === 'none') return undefined;
  return {
    on: { type: trigger.target.kind, iid: trigger.target.iid },
    ...(trigger.kind === 'note' ? { replyTo: String(trigger.noteId) } : {}),
  };
}

/** The requester lacks the role: refused without a word on GitLab. */
function requesterRefused(error: unknown): boolean {
  return isAgentError(error) && error.where === 'MR_AGENT_TRIGGERED_BY';
}

/** The request's own words, for the reply's language (`notes.language: auto`). */
function requestText(input: { context: CiContext; payload?: CommandRequest | undefined }): string {
  if (input.payload) return input.payload.instruction;
  const trigger = input.context.trigger;
  return trigger.kind === 'note' || trigger.kind === 'manual' ? trigger.task : '';
}

export function renderEarlyFailureNote(
  input: Pick<EarlyFailure, 'context' | 'error' | 'config'> &
    Partial<Pick<EarlyFailure, 'payload'>> & {
      /** The language already decided for the run (a run job's hand-off). */
      language?: Language | undefined;
    },
): string {
  const { context } = input;
  const language =
    input.language ?? resolveLanguage(input.config.notes.language, requestText(input));
  const v = voiceOf({ language });
  const described = describeError(input.error);
  const problems = described.details.filter((d) => !d.startsWith('hint: '));
  const error = input.error;
  const describedHint = described.details
    .find((d) => d.startsWith('hint: '))
    ?.slice('hint: '.length);
  const keyed = isAgentError(error)
    ? hintText(
        {
          message: described.message,
          blame: error.blame,
          ...(error.hint ? { hint: error.hint } : {}),
          ...(error.hintKey ? { hintKey: error.hintKey } : {}),
          kind: error.name,
        },
        v,
      )
    : undefined;
  // English keeps the catalog's hint of any kind; another language only a translated one
  const hint = keyed ?? (language === 'en' ? describedHint : v.m('hint.jobLog'));
  const jobText = v.m('early.job', { id: String(context.job.id) });
  const job = context.job.url ? `[${jobText}](${context.job.url})` : jobText;
  // English text from the code (the error, each problem) is shown as code in another language
  const own = (text: string) => (language === 'en' ? text : inlineCode(text));
  return [
    renderMarker({
      kind: 'reply',
      job: String(context.job.id),
      pipeline: String(context.pipeline.id),
      state: 'failed',
    }),
    `❌ **${v.m('early.heading')}**: ${own(described.message)}`,
    ...(problems.length > 0
      ? [
          '',
          ...problems.map((p) =>
            language === 'en'
              ? p.replace(/^\s*-\s*/, '- ')
              : `- ${inlineCode(p.replace(/^\s*-\s*/, ''))}`,
          ),
        ]
      : []),
    '',
    `**${v.m('early.whatToDo')}** ${hint ?? v.m('early.fallback')}`,
    '',
    v.m('early.details', {
      job,
      file: inlineCode(`${input.config.state.directory}/result.json`),
    }),
  ].join('\n');
}

function cancelledJob(failure: EarlyFailure): boolean {
  return failure.cancelled === true || failure.error instanceof CancelledError;
}

async function writeResult(failure: EarlyFailure, now: number): Promise<void> {
  const { context, config } = failure;
  const paths = statePaths(context.projectDir, config.state.directory);
  await writeResultFile(
    paths.result,
    buildRunResult({
      taskId: `job-${context.job.id}`,
      status: cancelledJob(failure) ? 'cancelled' : 'failed',
      exitCode: failure.exitCode,
      summary: describeError(failure.error).message,
      startedAt: now,
      finishedAt: now,
      validation: [],
      usage: { byRole: {} },
      jobId: String(context.job.id),
      pipelineId: String(context.pipeline.id),
    }),
    failure.redactor,
  );
}

async function postFailureNote(
  failure: EarlyFailure,
  handoff: CiHandoff | undefined,
): Promise<void> {
  const where = whereAsked(failure.context, failure.payload, handoff?.request);
  if (!where || requesterRefused(failure.error) || cancelledJob(failure)) return;
  const body = renderEarlyFailureNote({ ...failure, language: handoff?.language });
  const options = { redactor: failure.redactor };
  if (isConfidentialTarget(failure.error)) {
    // said where only those who may see the issue read it; never as a public note
    const internal = prepareNoteBody(body, options);
    await failure.gitlab.createNote(failure.context.gitlab.projectId, where.on, internal, {
      internal: true,
    });
    return;
  }
  const target = new GitLabNoteTarget(failure.gitlab, failure.context.gitlab.projectId, where.on);
  if (where.replyTo !== undefined) {
    try {
      await postNote(target, body, { ...options, replyTo: where.replyTo });
      return;
    } catch (error) {
      failure.logger.warn('failure reply not posted in the thread', {
        error: describeError(error).message,
      });
    }
  }
  await postNote(target, body, options);
}

/**
 * The run job of the two-step flow that fails before it takes over the
 * plan job's progress note still ends that note, as failed: it would say
 * "running" for good otherwise.
 */
async function endHandedOverNote(failure: EarlyFailure, handoff: CiHandoff): Promise<void> {
  if (!handoff.noteId) return;
  await endNote(failure, handoff.request.target, {
    noteId: handoff.noteId,
    taskId: handoff.task.id,
    title: taskFromText(handoff.task.text).title,
    runId: handoff.runId,
    ...(handoff.language ? { language: handoff.language } : {}),
  });
}

/** Where the command was asked, from the payload or the job's variables. */
function askedTarget(failure: EarlyFailure): CiRequest['target'] | undefined {
  if (failure.payload) return failure.payload.target;
  const trigger = failure.context.trigger;
  return trigger.kind === 'note' || trigger.kind === 'manual' ? trigger.target : undefined;
}

/** The progress note posted before the run was composed is ended too: failed, or cancelled. */
async function endFirstNote(failure: EarlyFailure, note: FirstNote): Promise<void> {
  const target = askedTarget(failure);
  if (!target) return;
  await endNote(failure, target, { ...note, runId: note.taskId });
}

/** Ends a progress note the run never took over, as failed (or cancelled). */
async function endNote(
  failure: EarlyFailure,
  target: CiRequest['target'],
  note: { noteId: string; taskId: string; title: string; runId: string; language?: Language },
): Promise<void> {
  if (target.kind === 'none') return;
  const { context } = failure;
  const notes = new AdoptingNoteTarget(
    new GitLabNoteTarget(failure.gitlab, context.gitlab.projectId, {
      type: target.kind,
      iid: target.iid,
    }),
    note.noteId,
    undefined,
  );
  const reporting = await startReporting({
    repoDir: context.projectDir,
    config: failure.config,
    taskId: note.taskId,
    title: note.title,
    ...(note.language ? { language: note.language } : {}),
    runId: note.runId,
    target: notes,
    redactor: failure.redactor,
    logger: failure.logger,
    clock: systemClock,
    ci: { jobId: String(context.job.id), pipelineId: String(context.pipeline.id) },
  });
  await reporting.abandon(
    {
      state: failure.cancelled ? 'cancelled' : 'failed',
      summary: describeError(failure.error).message,
      exitCode: failure.exitCode,
    },
    15_000,
  );
}

/** Tells the requester and writes result.json; never throws (the job fails with the original error). */
export async function reportEarlyFailure(failure: EarlyFailure): Promise<void> {
  const { logger } = failure;
  const attempt = async (what: string, work: () => Promise<unknown>) => {
    try {
      await work();
    } catch (error) {
      logger.error(`${what} failed`, { error: describeError(error).message });
    }
  };
  const handoff =
    failure.context.step === 'run'
      ? await readHandoff(failure.context.projectDir).catch(() => undefined)
      : undefined;
  await attempt('writing result.json', () => writeResult(failure, Date.now()));
  if (handoff) await attempt('ending the progress note', () => endHandedOverNote(failure, handoff));
  const firstNote = failure.firstNote;
  if (firstNote) await attempt('ending the progress note', () => endFirstNote(failure, firstNote));
  await attempt('posting the failure on GitLab', () => postFailureNote(failure, handoff));
}
