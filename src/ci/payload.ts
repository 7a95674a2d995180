import { readFile } from 'node:fs/promises';
import { ConfigError } from '../errors/errors.ts';
import {
  interpretTriggerPayload,
  type TriggerPayloadDecision,
} from '../trigger/trigger-payload.ts';
import type { CiContext } from './context.ts';

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

/** A3: the same command rules as the bridge, decided from the payload alone (no API call). */
export async function decideTriggerPayload(
  context: CiContext,
  payload: string,
  prefix: string,
): Promise<TriggerPayloadDecision> {
  const text = await readTriggerPayload(payload);
  return interpretTriggerPayload(text, { prefix }, { pipelineRef: context.ref });
}
