import * as z from 'zod';
import type { CiTrigger } from './context.ts';

/**
 * What the agent is asked to do in this pipeline, whichever way it came in
 * (the bridge, a TRIGGER_PAYLOAD, "Run pipeline" or the API). The plan job hands it to the
 * run job of the child pipeline inside `.mr-agent/ci-handoff.json`.
 */
export const CiTarget = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('merge_request'), iid: z.number().int().positive() }),
  z.object({ kind: z.literal('issue'), iid: z.number().int().positive() }),
  z.object({ kind: z.literal('none') }),
]);

export const CiRequest = z.object({
  source: z.enum(['note', 'manual', 'api']),
  /** A verb that starts a run (src/commands/verbs.ts). */
  command: z.string().min(1),
  task: z.string(),
  target: CiTarget,
  /** The comment that asked, for notes. */
  noteId: z.number().int().positive().optional(),
  /** The user on whose behalf the agent acts (the commenter), when known. */
  userId: z.number().int().positive().optional(),
  /** Their GitLab username, when known: the @mention in the notes that need an answer, the user-config API (requester.ts). */
  username: z.string().min(1).optional(),
});
export type CiRequest = z.infer<typeof CiRequest>;

/** The request carried by the bridge's or a manual run's variables. */
export function requestFromTrigger(
  trigger: Extract<CiTrigger, { kind: 'note' | 'manual' }>,
): CiRequest {
  if (trigger.kind === 'note') {
    return {
      source: 'note',
      command: trigger.command,
      task: trigger.task,
      target: trigger.target,
      noteId: trigger.noteId,
      ...(trigger.triggeredBy ? { userId: trigger.triggeredBy } : {}),
    };
  }
  return {
    source: trigger.source,
    command: 'run',
    task: trigger.task,
    target: trigger.target,
    ...(trigger.triggeredBy ? { userId: trigger.triggeredBy } : {}),
  };
}
