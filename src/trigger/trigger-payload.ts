import { parseNoteEvent } from './note-event.ts';
import {
  decideNote,
  type CommandRequest,
  type IgnoreReason,
  type NoteRules,
} from './note-rules.ts';
import { pipelineVariables, type TriggerVariable } from './variables.ts';

/**
 * The zero-infrastructure trigger (A3): a GitLab *Comments* webhook pointed
 * straight at the pipeline-trigger URL. GitLab then starts a pipeline for
 * every comment and hands the event to the job as the file variable
 * `TRIGGER_PAYLOAD`. `mr-agent ci` reads that file and calls this function:
 * on `skip` it logs the message and exits 0 at once; on `command` it goes on
 * exactly as if the bridge had triggered it with `variables`: it calls
 * `dispatchCommand` (dispatch.ts) with `excludePipelineId` = its own
 * `CI_PIPELINE_ID` and a `start` that returns its own pipeline, and carries
 * on with the run only when the outcome is `started` — so the role check, the
 * 👀 claim, "already running" and `stop`/`status`/`help` behave as in the
 * bridge.
 */
export type PayloadSkipReason =
  IgnoreReason | 'empty-payload' | 'not-json' | 'not-a-note-event' | 'invalid-payload';

export type TriggerPayloadDecision =
  | {
      kind: 'command';
      request: CommandRequest;
      /** What the bridge would have passed as pipeline variables. */
      variables: Partial<Record<TriggerVariable, string>>;
    }
  | { kind: 'skip'; reason: PayloadSkipReason; message: string };

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

/** Pure: the payload file's text in, a decision out. Never throws. */
export function interpretTriggerPayload(
  text: string | undefined,
  rules: NoteRules,
  context: PayloadContext = {},
): TriggerPayloadDecision {
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
  const request = context.pipelineRef
    ? { ...decision.request, ref: context.pipelineRef }
    : decision.request;
  return { kind: 'command', request, variables: pipelineVariables(request) };
}
