import type { Note } from '../core/gitlab-port.ts';
import { parseMarker, type NoteMarker } from '../report/marker.ts';
import { detectLanguage, type Language, type LanguageSetting } from '../messages/language.ts';
import { FINAL_STATES, type FinalState } from '../core/progress/model.ts';
import { renderStatusReply, type RunStatus } from '../report/notes/reply-note.ts';
import { isActive } from './agent-runs.ts';
import type { AgentPipeline } from './bridge-port.ts';

/**
 * `/agent status`: the state of the active or last run on
 * a merge request or issue, read from what GitLab already holds — the newest
 * progress note the agent posted there (its hidden marker carries the state,
 * phase, plan steps and the ❓ note a paused run waits on, all
 * language-neutral) and the newest agent pipeline. The bridge and the
 * TRIGGER_PAYLOAD job answer with the same reply.
 */
export interface StatusFacts {
  /** The MR's or issue's notes, oldest first. */
  notes: readonly Note[];
  /** The agent's own user: only its notes count. */
  selfId: number | undefined;
  /** The MR's or issue's page, for links to notes (`<url>#note_<id>`). */
  targetUrl: string | undefined;
  /** The newest agent pipeline for the target, when there is one. */
  pipeline: AgentPipeline | undefined;
}

const PIPELINE_STATES: Readonly<Record<string, FinalState>> = {
  success: 'complete',
  failed: 'failed',
  canceled: 'cancelled',
  canceling: 'cancelled',
  skipped: 'cancelled',
};

interface Found {
  note: Note;
  marker: NoteMarker;
}

/** The newest note of the agent with a marker of `kind` (and `keep`). */
function newest(facts: StatusFacts, keep: (marker: NoteMarker) => boolean): Found | undefined {
  for (let i = facts.notes.length - 1; i >= 0; i--) {
    const note = facts.notes[i]!;
    if (note.system || (facts.selfId !== undefined && note.author.id !== facts.selfId)) continue;
    const marker = parseMarker(note.body);
    if (marker && keep(marker)) return { note, marker };
  }
  return undefined;
}

/** `https://host/group/project` from an MR or issue page. */
function projectUrl(targetUrl: string | undefined): string | undefined {
  const at = targetUrl?.indexOf('/-/') ?? -1;
  return at > 0 ? targetUrl!.slice(0, at) : undefined;
}

function noteUrl(facts: StatusFacts, id: string | number | undefined): string | undefined {
  return facts.targetUrl && id !== undefined && /^\d+$/.test(String(id))
    ? `${facts.targetUrl}#note_${id}`
    : undefined;
}

function markerState(marker: NoteMarker): RunStatus['state'] {
  const state = marker.state ?? 'running';
  return (FINAL_STATES as readonly string[]).includes(state) ? (state as FinalState) : 'running';
}

/** Where the ❓ note is: the marker names it, else the newest ❓ of the run still open. */
function questionUrl(facts: StatusFacts, progress: Found): string | undefined {
  if (progress.marker.question) return noteUrl(facts, progress.marker.question);
  const asked = newest(
    facts,
    (m) =>
      m.kind === 'clarification' &&
      m.state === 'awaiting_answer' &&
      (m.task === undefined || m.task === progress.marker.task),
  );
  return asked ? noteUrl(facts, asked.note.id) : undefined;
}

function pipelineOf(
  facts: StatusFacts,
  id: string | undefined,
): { id: number; url?: string } | undefined {
  const pipeline = facts.pipeline;
  if (pipeline && (id === undefined || String(pipeline.id) === id))
    return { id: pipeline.id, ...(pipeline.webUrl ? { url: pipeline.webUrl } : {}) };
  if (!id || !/^\d+$/.test(id)) return undefined;
  const project = projectUrl(facts.targetUrl);
  return { id: Number(id), ...(project ? { url: `${project}/-/pipelines/${id}` } : {}) };
}

/** Only a pipeline: no progress note yet (just started) or none at all. */
function fromPipeline(pipeline: AgentPipeline): RunStatus {
  const state = isActive(pipeline) ? 'running' : (PIPELINE_STATES[pipeline.status] ?? 'failed');
  return {
    state,
    pipeline: { id: pipeline.id, ...(pipeline.webUrl ? { url: pipeline.webUrl } : {}) },
  };
}

/** The run's status from its progress note and pipeline. */
export function runStatusOf(facts: StatusFacts): RunStatus {
  const progress = newest(facts, (m) => m.kind === 'progress');
  const pipeline = facts.pipeline;
  if (!progress) return pipeline ? fromPipeline(pipeline) : { state: 'never_run' };
  const { marker, note } = progress;
  const markerPipeline = Number(marker.pipeline);
  // a newer run has started but not written its note yet
  if (pipeline && isActive(pipeline) && pipeline.id > markerPipeline) return fromPipeline(pipeline);
  let state = markerState(marker);
  // the note still says running, but its pipeline has ended: nothing will finish it
  if (state === 'running' && pipeline?.id === markerPipeline && !isActive(pipeline))
    state = 'interrupted';
  const done = Number(marker.done);
  const total = Number(marker.total);
  const project = projectUrl(facts.targetUrl);
  const status: RunStatus = {
    state,
    ...(marker.phase ? { phase: marker.phase } : {}),
    ...(Number.isInteger(done) && Number.isInteger(total) && total > 0
      ? { progress: { done, total } }
      : {}),
    startedAt: Date.parse(note.createdAt),
    ...(state !== 'running' ? { finishedAt: Date.parse(note.updatedAt) } : {}),
  };
  const progressNoteUrl = noteUrl(facts, note.id);
  if (progressNoteUrl) status.progressNoteUrl = progressNoteUrl;
  if (project && marker.job && /^\d+$/.test(marker.job))
    status.jobUrl = `${project}/-/jobs/${marker.job}`;
  const ran = pipelineOf(facts, marker.pipeline);
  if (ran) status.pipeline = ran;
  if (state === 'awaiting_answer') {
    const url = questionUrl(facts, progress);
    if (url) status.questionUrl = url;
  }
  return cleanTimes(status);
}

function cleanTimes(status: RunStatus): RunStatus {
  if (status.startedAt !== undefined && Number.isNaN(status.startedAt)) delete status.startedAt;
  if (status.finishedAt !== undefined && Number.isNaN(status.finishedAt)) delete status.finishedAt;
  return status;
}

/** The reply's language: the setting, or (`auto`) the language of the run's progress note. */
function replyLanguage(facts: StatusFacts, setting: LanguageSetting): Language {
  if (setting !== 'auto') return setting;
  const progress = newest(facts, (m) => m.kind === 'progress');
  return progress ? detectLanguage(progress.note.body.replace(/<!--[\s\S]*?-->/g, ' ')) : 'en';
}

/** The `/agent status` reply body (marker included). */
export function statusReply(
  facts: StatusFacts,
  options: { prefix: string; language?: LanguageSetting },
): string {
  const status = runStatusOf(facts);
  const language = replyLanguage(facts, options.language ?? 'auto');
  return renderStatusReply(status, { taskId: '', commandPrefix: options.prefix, language });
}
