import { readFile } from 'node:fs/promises';
import { ConfigError } from '../errors/errors.ts';
import type { ThreadLookup } from '../commands/resume.ts';
import {
  interpretTriggerPayload,
  resolveTriggerPayload,
  type TriggerPayloadDecision,
} from '../commands/trigger-payload.ts';
import type { CiContext } from './context.ts';
import type { GitLabPort } from '../core/gitlab-port.ts';

/**
 * GitLab hands the webhook event to the job as the *file* variable
 * `TRIGGER_PAYLOAD`: its value is the path of a file holding the JSON. A value
 * that is JSON itself (gitlab-ci-local, tests) is taken as it is.
 */
export async function readTriggerPayload(value: string): Promise<string> {
  const start = value.trimStart()[0];
  if (start === '{' || start === '[') return value;
  try {
    return await readFile(value, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read the TRIGGER_PAYLOAD file: ${(error as Error).message}`, {
      where: 'TRIGGER_PAYLOAD',
      hint: 'GitLab sets TRIGGER_PAYLOAD for pipelines started by a webhook at the trigger URL.',
    });
  }
}

/**
 * Reads a reply's thread through the GitLab API with the job's client: a reply below a paused ❓ question resumes the run.
 * The client is asked for on the first lookup: a top-level comment never needs
 * one, so its job still ends without loading the API client.
 */
export function jobThreadLookup(gitlab: () => Promise<GitLabPort>): ThreadLookup {
  let made: Promise<ThreadLookup> | undefined;
  const make = async (): Promise<ThreadLookup> => {
    const [client, { threadLookup }] = await Promise.all([
      gitlab(),
      import('../commands/gitlab-bridge.ts'),
    ]);
    const [read, self] = await Promise.all([threadLookup(client), client.currentUser()]);
    // only the agent's own ❓ question resumes a run: a marker copied into
    // someone else's note must not choose whose artifacts are restored
    return async (projectId, target, discussionId) => {
      const discussion = await read(projectId, target, discussionId);
      return discussion?.notes[0]?.author.id === self.id ? discussion : undefined;
    };
  };
  return async (projectId, target, discussionId) => {
    made ??= make();
    return (await made)(projectId, target, discussionId);
  };
}

/**
 * A comment webhook at the trigger URL: the same command rules as the bridge, decided from the payload alone
 * (no API call) — except a reply in a thread, which `lookup`, when given,
 * reads to tell whether it answers a paused ❓ question (a `resume`).
 */
export async function decideTriggerPayload(
  context: CiContext,
  payload: string,
  prefix: string,
  lookup?: ThreadLookup,
): Promise<TriggerPayloadDecision> {
  const text = await readTriggerPayload(payload);
  const pipeline = { pipelineRef: context.ref };
  return lookup
    ? resolveTriggerPayload(text, { prefix }, pipeline, lookup)
    : interpretTriggerPayload(text, { prefix }, pipeline);
}
