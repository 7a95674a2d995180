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
 * exactly as if the bridge had triggered it with `variables` (re-checking the
 * commenter's access level and claiming the note with `authorizeAndClaim`).
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

/** Pure: the payload file's text in, a decision out. Never throws. */
export function interpretTriggerPayload(
  text: string | undefined,
  rules: NoteRules,
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
  return {
    kind: 'command',
    request: decision.request,
    variables: pipelineVariables(decision.request),
  };
}
