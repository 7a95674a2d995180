import * as z from 'zod';
import { ModelBehaviorError } from '../errors/errors.ts';
import type { Logger } from '../log/logger.ts';
import { cutText } from '../core/text.ts';
import { extractJson, type JsonTop } from './extract-json.ts';
import type { ChatMessage, ChatReply, JsonReply, JsonRequest } from '../core/llm-port.ts';
import { renderPrompt } from '../core/prompts.ts';
import { topOf } from './response-format.ts';
import { addUsage, emptyUsage } from './usage-ledger.ts';

/**
 * The `json()` half of the LLM port, shared by the OpenAI adapter and the
 * scripted test double: ask, extract the JSON
 * with `extractJson`, validate it with the zod schema, and on failure send
 * the reply back with the problem, at most `maxReasks` times; then a
 * ModelBehaviorError saying what was wrong.
 */

export interface AskForJsonOptions {
  maxReasks: number;
  /** The re-ask prompt template (`prompts/json-reask.md`), read when the first re-ask is due. */
  reaskTemplate: () => Promise<string>;
  logger?: Logger;
}

const MAX_PROBLEM_CHARS = 2000;
/**
 * How much of a failed reply is sent back with the re-ask. A runaway reply
 * (megabytes of braces) is not repeated whole: that would grow every re-ask
 * by its size and overflow the endpoint's request or context limit.
 */
export const MAX_ECHOED_REPLY_CHARS = 16_000;

function echoedReply(raw: string): string {
  if (raw.length <= MAX_ECHOED_REPLY_CHARS) return raw;
  const head = raw.slice(0, MAX_ECHOED_REPLY_CHARS);
  return `${head}\n[… ${raw.length - head.length} more characters of this reply not repeated]`;
}

export async function askForJson<T>(
  request: JsonRequest<T>,
  complete: (messages: readonly ChatMessage[]) => Promise<ChatReply>,
  options: AskForJsonOptions,
): Promise<JsonReply<T>> {
  const messages: ChatMessage[] = [...request.messages];
  let usage = emptyUsage();
  for (let reasks = 0; ; reasks++) {
    const reply = await complete(messages);
    usage = addUsage(usage, reply.usage);
    const raw = reply.content ?? '';
    const parsed = parseJsonReply(raw, request.schema);
    if (parsed.ok) return { value: parsed.value, raw, usage, reasks };
    options.logger?.warn('llm reply failed validation', {
      purpose: request.purpose,
      schema: request.schemaName,
      reask: reasks + 1,
      maxReasks: options.maxReasks,
      problem: parsed.problem.slice(0, 500),
    });
    if (reasks >= options.maxReasks) {
      throw new ModelBehaviorError(
        `the ${request.purpose} reply did not match ${request.schemaName} after ${reasks} re-ask${reasks === 1 ? '' : 's'}: ${parsed.problem.slice(0, 300)}`,
        {
          purpose: request.purpose,
          where: `LLM reply for ${request.purpose}`,
          hintKey: 'hint.model.reasks',
        },
      );
    }
    messages.push(
      { role: 'assistant', content: echoedReply(raw) },
      {
        role: 'user',
        content: renderPrompt(await options.reaskTemplate(), {
          schema_name: request.schemaName,
          problem: parsed.problem,
        }),
      },
    );
  }
}

const tops = new WeakMap<z.ZodType, JsonTop>();

/** Extracts and validates one reply: the value, or the problem to send back to the model. */
export function parseJsonReply<T>(
  raw: string,
  schema: z.ZodType<T>,
): { ok: true; value: T } | { ok: false; problem: string } {
  let top = tops.get(schema);
  if (top === undefined) {
    top = topOf(schema);
    tops.set(schema, top);
  }
  const extracted = extractJson(raw, { top });
  if (!extracted.ok) return { ok: false, problem: clip(extracted.reason) };
  const validated = schema.safeParse(extracted.value);
  if (validated.success) return { ok: true, value: validated.data };
  return {
    ok: false,
    problem: clip(`the JSON does not match the schema:\n${z.prettifyError(validated.error)}`),
  };
}

function clip(text: string): string {
  return cutText(text, MAX_PROBLEM_CHARS);
}
