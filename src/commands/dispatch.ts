import { describeError } from '../errors/catalog.ts';
import { ConfigError } from '../errors/errors.ts';
import { detectLanguage, type Language, type LanguageSetting } from '../messages/language.ts';
import type { Logger } from '../log/logger.ts';
import type { Redactor } from '../log/redact.ts';
import { accessLevelName } from '../gitlab/access-levels.ts';
import {
  activeAgentPipelines,
  blockingAgentPipelines,
  lastAgentPipeline,
  RUN_EMOJI,
} from './agent-runs.ts';
import type { AgentPipeline, BridgeGitLab } from './bridge-port.ts';
import type { CommandRequest, ReplyCandidate } from './note-rules.ts';
import {
  alreadyRunningText,
  finishReply,
  helpText,
  joinedText,
  nothingToStopText,
  queuedText,
  privateRefusalText,
  refusalText,
  refusedMoreText,
  type RefusalReason,
  startFailedText,
  stoppedText,
} from './replies.ts';
import { PAUSE_EMOJI, pauseReply, runningProgressNote } from './pause.ts';
import { resolveReply } from './resume.ts';
import { statusReply } from './run-status.ts';
import { parseMarker, renderMarker } from '../report/marker.ts';
import { isRunVerb, type AnsweredVerb } from './verbs.ts';
import type { HeldLock, TargetLock } from './target-lock.ts';

/**
 * The API half of the comment rules, after `decideNote` accepted a
 * comment: check the author's access level, claim the note with 👀, then act.
 * The bridge's `start` triggers a pipeline; `mr-agent ci` (TRIGGER_PAYLOAD)
 * passes a `start` that returns its own pipeline and an `excludePipelineId`,
 * and goes on with the run when the outcome is `started`.
 */
export const CLAIM_EMOJI = 'eyes';

export interface DispatchDeps {
  gitlab: BridgeGitLab;
  logger: Logger;
  redactor?: Redactor;
  /** Least numeric access level (`trigger.min_access_level`). */
  minAccessLevel: number;
  prefix: string;
  start(request: CommandRequest): Promise<AgentPipeline>;
  excludePipelineId?: number;
  /** The agent's own user: only its ❓ questions are resumed by a reply. */
  selfId?: number | undefined;
  /** `notes.language` for the replies that speak about a run (`auto`: the run's own). */
  language?: LanguageSetting | undefined;
  /**
   * The lock held in GitLab around "look for a running run, then start one",
   * so bridge replicas answering two commands on one target start one run.
   */
  targetLock?: TargetLock | undefined;
  /**
   * A TRIGGER_PAYLOAD job, whose pipeline is active from the start like that
   * of every comment: when it goes on as the run, its comment gets the
   * agent's ▶ (`RUN_EMOJI`) while the lock is held, which is what makes its
   * pipeline the run for the next job to look.
   */
  markStartedRun?: boolean | undefined;
}

export type DispatchOutcome =
  | { kind: 'forbidden'; accessLevel: number }
  | { kind: 'duplicate' }
  | { kind: 'help' }
  | { kind: 'status'; pipeline: AgentPipeline | undefined }
  | { kind: 'stopped'; pipelines: AgentPipeline[] }
  | { kind: 'nothing-to-stop' }
  | { kind: 'pause-asked'; pipelines: AgentPipeline[] }
  | { kind: 'nothing-to-pause' }
  | { kind: 'already-running'; pipeline: AgentPipeline }
  /** A new instruction during a run: the running job hears it at its next checkpoint. */
  | { kind: 'joined'; pipeline: AgentPipeline }
  /** A new instruction once the running run is delivering: a follow-up run, after it. */
  | { kind: 'queued'; pipeline: AgentPipeline; running: AgentPipeline }
  | { kind: 'started'; pipeline: AgentPipeline }
  | { kind: 'start-failed'; message: string }
  /** A command said in private: answered with an internal note, nothing started. */
  | { kind: 'refused-private' }
  /** Not started, and the reason said in the command's thread. */
  | { kind: 'refused'; reason: RefusalReason['kind'] };

/** A reply in a thread: a resume when the thread is a paused ❓ question, else nothing. */
export type ReplyOutcome = DispatchOutcome | { kind: 'not-a-resume'; detail: string };

export type ClaimResult =
  { kind: 'claimed' } | { kind: 'forbidden'; accessLevel: number } | { kind: 'duplicate' };

/**
 * Access check, then the 👀 award: only the delivery whose award succeeds
 * goes on. `alongside` starts once the author may command, while the award
 * is made.
 */
export async function authorizeAndClaim(
  gitlab: BridgeGitLab,
  request: CommandRequest,
  minAccessLevel: number,
  alongside?: () => void,
): Promise<ClaimResult> {
  const accessLevel = await gitlab.accessLevel(request.projectId, request.user.id);
  if (accessLevel < minAccessLevel) return { kind: 'forbidden', accessLevel };
  alongside?.();
  const award = await gitlab.awardNoteEmoji(
    request.projectId,
    request.target,
    request.noteId,
    CLAIM_EMOJI,
  );
  return award.awarded ? { kind: 'claimed' } : { kind: 'duplicate' };
}

/** The language of a reply: `notes.language`, or with `auto` the command's own (`/agent テストを…`). */
function replyIn(deps: DispatchDeps, request: CommandRequest): Language {
  const setting = deps.language ?? 'auto';
  return setting !== 'auto' ? setting : detectLanguage(request.instruction);
}

async function reply(deps: DispatchDeps, request: CommandRequest, text: string): Promise<void> {
  try {
    await deps.gitlab.reply(
      request.projectId,
      request.target,
      request.discussionId,
      finishReply(text, deps.redactor),
    );
  } catch (error) {
    deps.logger.warn('reply failed', {
      noteId: request.noteId,
      error: describeError(error).message,
    });
  }
}

function lookupFor(deps: DispatchDeps, request: CommandRequest) {
  return {
    gitlab: deps.gitlab,
    request,
    excludePipelineId: deps.excludePipelineId,
    prefix: deps.prefix,
    selfId: deps.selfId,
    runsMarked: deps.targetLock !== undefined,
    onUnreadable: (pipeline: AgentPipeline, error: unknown) =>
      deps.logger.warn('pipeline variables unreadable; counting it as an agent run', {
        pipelineId: pipeline.id,
        error: describeError(error).message,
      }),
  };
}

/**
 * Where an active run stands for a new instruction: `listening` until its
 * pipeline's progress note (the marker names the pipeline) shows the run's
 * end, `delivering` from then while the pipeline is still finishing.
 */
async function runStage(
  deps: DispatchDeps,
  request: CommandRequest,
  active: AgentPipeline,
): Promise<'listening' | 'delivering'> {
  const [notes, selfId] = await Promise.all([
    deps.gitlab.listNotes(request.projectId, request.target),
    deps.selfId ?? deps.gitlab.currentUser().then((u) => u.id),
  ]);
  const ended = notes.some((n) => {
    if (n.author.id !== selfId) return false;
    const marker = parseMarker(n.body);
    return (
      marker?.kind === 'progress' &&
      marker.pipeline === String(active.id) &&
      marker.state !== 'running'
    );
  });
  return ended ? 'delivering' : 'listening';
}

async function startPipeline(
  deps: DispatchDeps,
  request: CommandRequest,
): Promise<{ pipeline: AgentPipeline } | { failed: DispatchOutcome }> {
  try {
    return { pipeline: await deps.start(request) };
  } catch (error) {
    const message = describeError(error).message;
    const hint = error instanceof ConfigError ? error.hint : undefined;
    await reply(deps, request, startFailedText(message, hint, replyIn(deps, request)));
    return { failed: { kind: 'start-failed', message } };
  }
}

/**
 * A new instruction (`/agent <instruction>`) while a run is active joins
 * it: the running job reads it at its next checkpoint and answers it
 * there, so no second pipeline starts. Once the run is delivering, the
 * instruction starts a follow-up run instead, which the per-target resource
 * group holds until the running one ends, and which continues from the
 * merge request's history.
 */
async function joinOrFollow(
  deps: DispatchDeps,
  request: CommandRequest,
  active: AgentPipeline,
): Promise<DispatchOutcome> {
  const language = replyIn(deps, request);
  if ((await runStage(deps, request, active)) === 'listening') {
    // the marker names the run: at its end it answers the instructions it told "joined" but never heard
    const marker = renderMarker({ kind: 'reply', pipeline: String(active.id), state: 'joined' });
    const noteUrl = await runningNoteUrl(deps, request);
    await reply(
      deps,
      request,
      `${marker}\n${joinedText(request.target, active, language, noteUrl)}`,
    );
    return { kind: 'joined', pipeline: active };
  }
  const started = await startPipeline(deps, request);
  if ('failed' in started) return started.failed;
  await reply(deps, request, queuedText(request.target, active, started.pipeline, language));
  return { kind: 'queued', pipeline: started.pipeline, running: active };
}

/** The running run's progress note, to link from a reply; undefined when it cannot be told. */
async function runningNoteUrl(
  deps: DispatchDeps,
  request: CommandRequest,
): Promise<string | undefined> {
  const { gitlab } = deps;
  try {
    const [notes, targetUrl, selfId] = await Promise.all([
      gitlab.listNotes(request.projectId, request.target),
      gitlab.targetWebUrl(request.projectId, request.target),
      deps.selfId ?? gitlab.currentUser().then((u) => u.id),
    ]);
    const note = runningProgressNote(notes, selfId);
    return note && targetUrl ? `${targetUrl}#note_${note.id}` : undefined;
  } catch (error) {
    deps.logger.warn('progress note not found for the reply', {
      error: describeError(error).message,
    });
    return undefined;
  }
}

async function runCommand(
  deps: DispatchDeps,
  request: CommandRequest,
  taking?: Promise<HeldLock | undefined>,
): Promise<DispatchOutcome> {
  if (!deps.targetLock) return decideAndStart(deps, request);
  const held = await (taking ?? deps.targetLock.acquire(request.projectId, request.target));
  if (!held) {
    const reason: RefusalReason = { kind: 'target-busy' };
    await reply(deps, request, refusalText(request.target, reason, 0, replyIn(deps, request)));
    return { kind: 'refused', reason: reason.kind };
  }
  let outcome: DispatchOutcome;
  try {
    outcome = await decideAndStart(deps, request);
  } catch (error) {
    await held.release();
    throw error;
  }
  if (deps.markStartedRun && goesOn(outcome)) {
    // the job goes on at once: its ▶ lands, then the lock goes, behind its
    // back (the next job waits for the lock, so it sees the ▶; a job that
    // dies first leaves a lock that goes stale)
    void markRun(deps, request).finally(() => held.release());
    return outcome;
  }
  await held.release();
  return outcome;
}

/** Whether the run goes on: started now, or queued as the follow-up. */
function goesOn(outcome: DispatchOutcome): boolean {
  return outcome.kind === 'started' || outcome.kind === 'queued';
}

async function decideAndStart(
  deps: DispatchDeps,
  request: CommandRequest,
): Promise<DispatchOutcome> {
  const lookup = lookupFor(deps, request);
  const [active] = await blockingAgentPipelines(lookup);
  // a diff thread's request is a run of its own: its answer belongs in that thread
  if (active && request.command === 'run' && !request.thread && request.instruction.trim() !== '') {
    return joinOrFollow(deps, request, active);
  }
  if (active) {
    const note = await runningNoteUrl(deps, request);
    await reply(
      deps,
      request,
      alreadyRunningText(request.target, active, deps.prefix, replyIn(deps, request), note),
    );
    return { kind: 'already-running', pipeline: active };
  }
  const started = await startPipeline(deps, request);
  return 'failed' in started ? started.failed : { kind: 'started', pipeline: started.pipeline };
}

/** A TRIGGER_PAYLOAD job that goes on as a run (now, or as the follow-up) says so on its comment. */
async function markRun(deps: DispatchDeps, request: CommandRequest): Promise<void> {
  try {
    await deps.gitlab.awardNoteEmoji(request.projectId, request.target, request.noteId, RUN_EMOJI);
  } catch (error) {
    deps.logger.warn('run mark (▶) not given; another command may start a second run', {
      noteId: request.noteId,
      error: describeError(error).message,
    });
  }
}

async function stop(deps: DispatchDeps, request: CommandRequest): Promise<DispatchOutcome> {
  const lookup = lookupFor(deps, request);
  const active = await activeAgentPipelines(lookup);
  if (active.length === 0) {
    await reply(deps, request, nothingToStopText(request.target, replyIn(deps, request)));
    return { kind: 'nothing-to-stop' };
  }
  const cancelled = await Promise.all(
    active.map((p) => deps.gitlab.cancelPipeline(request.projectId, p.id)),
  );
  await reply(deps, request, stoppedText(cancelled, replyIn(deps, request)));
  return { kind: 'stopped', pipelines: cancelled };
}

/** `/agent status`: the run's state from its progress note's marker and its pipeline. */
async function status(deps: DispatchDeps, request: CommandRequest): Promise<DispatchOutcome> {
  const { gitlab } = deps;
  const [pipeline, notes, targetUrl, selfId] = await Promise.all([
    lastAgentPipeline(lookupFor(deps, request)),
    gitlab.listNotes(request.projectId, request.target),
    gitlab.targetWebUrl(request.projectId, request.target).catch(() => undefined),
    deps.selfId ?? gitlab.currentUser().then((u) => u.id),
  ]);
  const body = statusReply(
    { notes, selfId, targetUrl, pipeline },
    { prefix: deps.prefix, language: deps.language },
  );
  await reply(deps, request, body);
  return { kind: 'status', pipeline };
}

/**
 * `/agent pause`: a ⏸ on the running run's progress note, which its job
 * looks for before each action (see ./pause.ts). Cancelling would kill the
 * job mid-action; this leaves a run `/agent resume` can carry on.
 */
async function pause(deps: DispatchDeps, request: CommandRequest): Promise<DispatchOutcome> {
  const { gitlab } = deps;
  const [active, notes, targetUrl, selfId] = await Promise.all([
    activeAgentPipelines(lookupFor(deps, request)),
    gitlab.listNotes(request.projectId, request.target),
    gitlab.targetWebUrl(request.projectId, request.target).catch(() => undefined),
    deps.selfId ?? gitlab.currentUser().then((u) => u.id),
  ]);
  const note = active.length > 0 ? runningProgressNote(notes, selfId) : undefined;
  const setting = deps.language ?? 'auto';
  const language = setting !== 'auto' ? setting : note ? detectLanguage(note.body) : 'en';
  const options = { prefix: deps.prefix, language };
  if (active.length === 0) {
    await reply(deps, request, pauseReply('nothing', options));
    return { kind: 'nothing-to-pause' };
  }
  if (!note) {
    await reply(deps, request, pauseReply('no-note', options));
    return { kind: 'nothing-to-pause' };
  }
  await gitlab.awardNoteEmoji(request.projectId, request.target, note.id, PAUSE_EMOJI);
  const noteUrl = targetUrl ? `${targetUrl}#note_${note.id}` : undefined;
  await reply(deps, request, pauseReply('asked', { ...options, noteUrl }));
  return { kind: 'pause-asked', pipelines: active };
}

async function help(deps: DispatchDeps, request: CommandRequest): Promise<DispatchOutcome> {
  await reply(deps, request, helpText(deps.prefix, replyIn(deps, request)));
  return { kind: 'help' };
}

/** The handler of each verb that is answered in the thread rather than run (verbs.ts). */
const ANSWERS: Readonly<
  Record<AnsweredVerb, (deps: DispatchDeps, request: CommandRequest) => Promise<DispatchOutcome>>
> = { status, pause, stop, help };

/** Carries out one accepted command. Throws only when GitLab itself fails. */
export async function dispatchCommand(
  deps: DispatchDeps,
  request: CommandRequest,
): Promise<DispatchOutcome> {
  const verb = request.command;
  // a job takes the target's lock while its 👀 is awarded: one round trip fewer before its note
  let taking: Promise<HeldLock | undefined> | undefined;
  const lock = deps.markStartedRun && isRunVerb(verb) ? deps.targetLock : undefined;
  const letGo = () => void taking?.then((held) => held?.release()).catch(() => undefined);
  const claim = await authorizeAndClaim(
    deps.gitlab,
    request,
    deps.minAccessLevel,
    lock &&
      (() => {
        taking = lock.acquire(request.projectId, request.target);
        taking.catch(() => undefined); // awaited later, or let go
      }),
  ).catch((error: unknown) => {
    letGo();
    throw error;
  });
  if (claim.kind === 'forbidden') {
    deps.logger.info('command refused: access level too low', {
      noteId: request.noteId,
      userId: request.user.id,
      accessLevel: accessLevelName(claim.accessLevel),
    });
    return claim;
  }
  if (claim.kind === 'duplicate') {
    letGo();
    return claim;
  }
  return isRunVerb(verb) ? runCommand(deps, request, taking) : ANSWERS[verb](deps, request);
}

/**
 * A command the bridge could not take (its queue, or the author's share of
 * it, was full): after the same access check and 👀 claim as any command,
 * a reply in its thread says why. With `silent`, the 👀 is the whole answer
 * (a flood from one author gets a few replies, not one per comment); `more`
 * names such silent refusals in this reply.
 */
export async function dispatchRefusal(
  deps: DispatchDeps,
  request: CommandRequest,
  refusal: { reason: RefusalReason; more: number; silent: boolean },
): Promise<DispatchOutcome> {
  const claim = await authorizeAndClaim(deps.gitlab, request, deps.minAccessLevel);
  if (claim.kind !== 'claimed') return claim;
  if (!refusal.silent) {
    const text = refusalText(request.target, refusal.reason, refusal.more, replyIn(deps, request));
    await reply(deps, request, text);
  }
  return { kind: 'refused', reason: refusal.reason.kind };
}

/** The reply naming refusals answered by 👀 alone, in the last one's thread (no claim: it has its 👀). */
export async function dispatchRefusalSummary(
  deps: DispatchDeps,
  request: CommandRequest,
  count: number,
): Promise<void> {
  await reply(deps, request, refusedMoreText(request.target, count, replyIn(deps, request)));
}

/**
 * A command in an internal note or on a confidential issue:
 * after the same access check and 👀 claim as any command, one internal note
 * says why nothing public was started.
 */
export async function dispatchPrivate(
  deps: DispatchDeps,
  request: CommandRequest,
): Promise<DispatchOutcome> {
  const claim = await authorizeAndClaim(deps.gitlab, request, deps.minAccessLevel);
  if (claim.kind !== 'claimed') return claim;
  try {
    await deps.gitlab.internalNote(
      request.projectId,
      request.target,
      finishReply(privateRefusalText(request.target, replyIn(deps, request)), deps.redactor),
    );
  } catch (error) {
    deps.logger.warn('internal reply failed', {
      noteId: request.noteId,
      error: describeError(error).message,
    });
  }
  return { kind: 'refused-private' };
}

/**
 * A reply in a thread: reads the thread; when it starts with a ❓
 * question a stopped run awaits, the reply is a `resume` request and goes
 * through `dispatchCommand` like a command (access level, 👀 claim, "already
 * running"). Anything else is left alone: no reaction, no reply.
 */
export async function dispatchReply(
  deps: DispatchDeps,
  reply: ReplyCandidate,
): Promise<ReplyOutcome> {
  const lookup = deps.gitlab.discussion.bind(deps.gitlab);
  const resolution = await resolveReply(reply, lookup, deps.selfId);
  if (resolution.kind === 'not-a-resume') return resolution;
  return dispatchCommand(deps, resolution.request);
}
