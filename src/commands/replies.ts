import { parseMarker, renderMarker } from '../report/marker.ts';
import { Redactor } from '../log/redact.ts';
import { prepareNoteBody } from '../report/note-body.ts';
import { helpLines, type HelpEntry } from '../report/notes/reply-note.ts';
import type { AgentPipeline } from './bridge-port.ts';
import type { CommandTarget } from './note-rules.ts';
import { t } from '../messages/catalog.ts';
import { EMOJI } from '../report/vocabulary.ts';
import { detectLanguage, type Language } from '../messages/language.ts';
import { VERB_NAMES, verbRow, type HelpKey } from './verbs.ts';

/**
 * The short notes the bridge posts in a command's thread. Every body
 * carries the hidden `reply` marker (so the agent never treats it as a
 * command), is redacted, and has every line that would start with `/` escaped,
 * so no reply can run a GitLab quick action.
 */
export function finishReply(text: string, redactor: Redactor = new Redactor()): string {
  // a reply rendered in report/notes (status) carries its own marker already
  const marked = parseMarker(text) ? text : `${renderMarker({ kind: 'reply' })}\n${text}`;
  return prepareNoteBody(marked, { redactor });
}

/** GitLab's status words (`running`) are identifiers: code outside English text. */
function statusWord(status: string, language: Language): string {
  return language === 'en' ? status : `\`${status.replace(/`/g, '')}\``;
}

function where(target: CommandTarget, language: Language): string {
  return t(
    language,
    target.kind === 'merge_request' ? 'reply.thisMergeRequest' : 'reply.thisIssue',
  );
}

function pipelineLink(pipeline: AgentPipeline, language: Language): string {
  const text = t(language, 'reply.pipeline', { id: String(pipeline.id) });
  return pipeline.webUrl ? `[${text}](${pipeline.webUrl})` : text;
}

/** The language of a reply: the command's own (`/agent テストを直して` gets Japanese). */
export function replyLanguage(instruction: string): Language {
  return detectLanguage(instruction);
}

/** The help reply's lines, one per verb of the table in its order (verbs.ts). */
export function helpEntries(): HelpEntry[] {
  return VERB_NAMES.map((verb) => {
    const row = verbRow(verb);
    return {
      verb: row.syntax === 'implicit' ? undefined : verb,
      instruction: row.syntax === 'implicit' || row.syntax === 'instruction',
      key: `help.${verb}` satisfies HelpKey,
      mentions: row.helpMentions,
    };
  });
}

/** The command list `/agent help` gets, from the bridge or from a job. */
export function helpText(prefix: string, language: Language = 'en'): string {
  return helpLines({ taskId: '', commandPrefix: prefix, language }, helpEntries()).join('\n');
}

/** "Follow it in its progress note", linked; empty when the note is not known. */
function followRun(language: Language, progressNoteUrl: string | undefined): string {
  return progressNoteUrl
    ? t(language, 'reply.followRun', {
        note: `[${t(language, 'reply.progressNote')}](${progressNoteUrl})`,
      })
    : '';
}

/**
 * "Already running": opens with the running state, names the pipeline and,
 * when it is found, links the running run's progress note.
 */
export function alreadyRunningText(
  target: CommandTarget,
  pipeline: AgentPipeline,
  prefix: string,
  language: Language = 'en',
  progressNoteUrl?: string,
): string {
  const running = t(language, 'reply.alreadyRunning', {
    where: where(target, language),
    pipeline: pipelineLink(pipeline, language),
    status: statusWord(pipeline.status, language),
  });
  const follow = followRun(language, progressNoteUrl);
  const gap = language === 'ja' ? '' : ' ';
  return [
    `${EMOJI.running} ${[running, follow].filter(Boolean).join(gap)}`,
    t(language, 'reply.notStarted', { stop: `\`${prefix} stop\`` }),
  ].join('\n');
}

/** A new instruction joined the running run (dispatch.ts). */
export function joinedText(
  target: CommandTarget,
  pipeline: AgentPipeline,
  language: Language = 'en',
  progressNoteUrl?: string,
): string {
  const joined = t(language, 'reply.joined', {
    where: where(target, language),
    pipeline: pipelineLink(pipeline, language),
  });
  const follow = followRun(language, progressNoteUrl);
  const gap = language === 'ja' ? '' : ' ';
  // opens with the run's state, like every bridge reply
  return `${EMOJI.running} ${[joined, follow].filter(Boolean).join(gap)}`;
}

/** A new instruction after the running run began delivering: a follow-up run. */
export function queuedText(
  target: CommandTarget,
  running: AgentPipeline,
  next: AgentPipeline,
  language: Language = 'en',
): string {
  return t(language, 'reply.queued', {
    where: where(target, language),
    pipeline: pipelineLink(running, language),
    next: pipelineLink(next, language),
  });
}

export function stoppedText(
  pipelines: readonly AgentPipeline[],
  language: Language = 'en',
): string {
  const list = pipelines.map((p) => pipelineLink(p, language)).join(t(language, 'punct.comma'));
  return `${EMOJI.cancelled} ${t(language, 'reply.stopped', { pipelines: list })}`;
}

export function nothingToStopText(target: CommandTarget, language: Language = 'en'): string {
  return t(language, 'reply.nothingToStop', { where: where(target, language) });
}

/** `hint`: what to change, when the cause is known (e.g. pipeline variables refused). */
export function startFailedText(reason: string, hint?: string, language: Language = 'en'): string {
  return [
    `${EMOJI.failed} ${t(language, 'reply.startFailed')}`,
    '',
    t(language, 'reply.gitlabAnswered', {
      reason: language === 'en' ? reason : `\`${reason.replace(/`/g, "'")}\``,
    }),
    '',
    hint ?? t(language, 'reply.startFailedHint'),
  ].join('\n');
}

/**
 * The internal reply to a command said in private: what the
 * agent writes — notes, commits, a merge request — is public, so nothing was
 * started. The command's text is not repeated.
 */
export function privateRefusalText(target: CommandTarget, language: Language = 'en'): string {
  return t(language, 'reply.privateRefusal', { where: where(target, language) });
}

/** Why a command was refused before anything started. */
export type RefusalReason =
  | { kind: 'busy'; waiting: number }
  | { kind: 'author-busy'; waiting: number }
  | { kind: 'target-busy' };

/** A refusal in the command's thread; `more` names the author's other refusals answered by 👀 alone. */
export function refusalText(
  target: CommandTarget,
  reason: RefusalReason,
  more: number,
  language: Language = 'en',
): string {
  const first =
    reason.kind === 'busy'
      ? t(language, 'reply.busy', { count: String(reason.waiting) })
      : reason.kind === 'author-busy'
        ? t(language, 'reply.authorBusy', { count: String(reason.waiting) })
        : t(language, 'reply.targetBusy', { where: where(target, language) });
  return more === 0 ? first : `${first}\n\n${refusedMoreText(target, more, language)}`;
}

/** How many more of the author's commands were refused with 👀 alone. */
export function refusedMoreText(target: CommandTarget, count: number, language: Language = 'en') {
  return t(language, 'reply.refusedMore', { count, where: where(target, language) });
}
