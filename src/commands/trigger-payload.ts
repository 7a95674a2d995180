import { parseNoteEvent } from './note-event.ts';
import {
  decideNote,
  type CommandRequest,
  type IgnoreReason,
  type NoteRules,
  type ReplyCandidate,
} from './note-rules.ts';
import { resolveReply, type ThreadLookup } from './resume.ts';
import { pipelineVariables, type TriggerVariable } from './variables.ts';

/**
 * The zero-infrastructure trigger: a GitLab *Comments* webhook pointed
 * straight at the pipeline-trigger URL. GitLab then starts a pipeline for
 * every comment and hands the event to the job as the file variable
 * `TRIGGER_PAYLOAD`. `mr-agent ci` reads that file and calls this module:
 * on `skip` it logs the message and exits 0 at once; on `command` it goes on
 * exactly as if the bridge had triggered it with `variables`: it calls
 * `dispatchCommand` (dispatch.ts) with `excludePipelineId` = its own
 * `CI_PIPELINE_ID` and a `start` that returns its own pipeline, and carries
 * on with the run only when the outcome is `started` — so the role check, the
 * 👀 claim, "already running" and `stop`/`status`/`help` behave as in the
 * bridge.
 *
 * `interpretTriggerPayload` decides from the payload alone (pure, no API
 * call). `resolveTriggerPayload` does the same and, for a reply in a thread
 * (a `DiscussionNote`), reads the thread through the lookup it is given: a
 * reply below a paused ❓ question is a `resume` request. Top-level
 * comments never reach the lookup, so they still end at once.
 */
export type PayloadSkipReason =
  IgnoreReason | 'empty-payload' | 'not-json' | 'not-a-note-event' | 'invalid-payload';

export type TriggerPayloadDecision =
  | {
      kind: 'command';
      /** A comment command, or `command: 'resume'` for a reply to a paused question. */
      request: CommandRequest;
      /** What the bridge would have passed as pipeline variables. */
      variables: Partial<Record<TriggerVariable, string>>;
    }
  | { kind: 'skip'; reason: PayloadSkipReason; message: string };

type Classified = TriggerPayloadDecision | { kind: 'reply'; reply: ReplyCandidate; detail: string };

function skip(reason: PayloadSkipReason, message: string): TriggerPayloadDecision {
  return { kind: 'skip', reason, message: `not a command: ${message}` };
}

export interface PayloadContext {
  /**
   * The ref this pipeline runs on (`CI_COMMIT_REF_NAME`). The trigger URL
   * fixes the ref, so every comment pipeline runs there (not on the MR's
   * branch); the request's ref is set to it so the "already running" look-up
   * searches where these pipelines are.
   */
  pipelineRef?: string | undefined;
}

function commandDecision(
  request: CommandRequest,
  context: PayloadContext,
): Extract<TriggerPayloadDecision, { kind: 'command' }> {
  const onRef = context.pipelineRef ? { ...request, ref: context.pipelineRef } : request;
  return { kind: 'command', request: onRef, variables: pipelineVariables(onRef) };
}

function classifyPayload(
  text: string | undefined,
  rules: NoteRules,
  context: PayloadContext,
): Classified {
  if (text === undefined || text.trim() === '') {
    return skip('empty-payload', 'TRIGGER_PAYLOAD is empty');
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    return skip('not-json', `TRIGGER_PAYLOAD is not JSON (${(error as Error).message})`);
  }
  const parsed = parseNoteEvent(body);
  if (!parsed.ok) return skip(parsed.reason, `TRIGGER_PAYLOAD ${parsed.detail}`);
  const decision = decideNote(parsed.event, rules);
  if (decision.kind === 'ignore') return skip(decision.reason, decision.detail);
  // said in private: a pipeline never carries it out (the bridge answers it internally)
  if (decision.kind === 'private') return skip('confidential', decision.detail);
  if (decision.kind === 'reply') {
    const reply = context.pipelineRef
      ? { ...decision.reply, ref: context.pipelineRef }
      : decision.reply;
    return { kind: 'reply', reply, detail: decision.detail };
  }
  return commandDecision(decision.request, context);
}

/**
 * The reply in a thread a payload carries, when it is one (pure): what the
 * "already running" look-up reads a comment pipeline's TRIGGER_PAYLOAD with.
 */
export function payloadReply(
  text: string | undefined,
  rules: NoteRules,
): ReplyCandidate | undefined {
  const classified = classifyPayload(text, rules, {});
  return classified.kind === 'reply' ? classified.reply : undefined;
}

/** Pure: the payload file's text in, a decision out. Never throws; replies are skipped. */
export function interpretTriggerPayload(
  text: string | undefined,
  rules: NoteRules,
  context: PayloadContext = {},
): TriggerPayloadDecision {
  const classified = classifyPayload(text, rules, context);
  if (classified.kind !== 'reply') return classified;
  return skip('not-a-command', `${classified.detail} (a reply in a thread; not looked up here)`);
}

/**
 * As `interpretTriggerPayload`, and a reply in a thread is looked up with
 * `lookup` (one GitLab call): below a paused ❓ question of the agent
 * (`rules.self`, when given, must have asked it) it is a `resume` request.
 * Throws only what `lookup` throws.
 */
export async function resolveTriggerPayload(
  text: string | undefined,
  rules: NoteRules,
  context: PayloadContext,
  lookup: ThreadLookup,
): Promise<TriggerPayloadDecision> {
  const classified = classifyPayload(text, rules, context);
  if (classified.kind !== 'reply') return classified;
  const resolution = await resolveReply(classified.reply, lookup, rules.self?.id);
  if (resolution.kind === 'not-a-resume') return skip('not-a-command', resolution.detail);
  return commandDecision(resolution.request, context);
}
