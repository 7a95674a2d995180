import { parse as parseYaml } from 'yaml';
import * as z from 'zod';
import { ConfigError } from '../../errors/errors.ts';

/**
 * A scenario for the scripted OpenAI-compatible server, usually written as
 * YAML. Each request takes the first reply (in file order) that matches it
 * and still has uses left, so replies with the same matcher are used in
 * sequence.
 *
 * ```yaml
 * json_schema: true            # false: refuse JSON-schema response formats (400)
 * replies:
 *   - purpose: planning        # X-Agent-Purpose; `review.*` matches by prefix
 *     contains: [Plan the work]  # substrings of the last `window` messages
 *     json: { goal_understanding: { … } }
 *   - purpose: execution
 *     tool_calls: [{ name: write_file, arguments: { path: a.txt, content: hi } }]
 *   - purpose: review.*
 *     fault: rate_limit
 *     retry_after: 2
 * ```
 */

const FAULT_NAMES = [
  'rate_limit',
  'server_error',
  'hang',
  'malformed',
  'reset',
  'refuse_response_format',
  'bad_request',
  'unauthorized',
  'forbidden',
] as const;
export type FaultName = (typeof FAULT_NAMES)[number];

export const StatusFault = z
  .object({
    status: z.number().int().min(400).max(599),
    message: z.string().optional(),
    type: z.string().optional(),
    code: z.string().optional(),
    param: z.string().optional(),
  })
  .strict();
export type StatusFault = z.infer<typeof StatusFault>;

export const ScriptedToolCall = z
  .object({
    id: z.string().optional(),
    name: z.string().min(1),
    /** An object (sent as its JSON) or the raw argument text. */
    arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).default({}),
  })
  .strict();

const stringList = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => (Array.isArray(v) ? v : [v]));

export const ScriptedReply = z
  .object({
    /** Matches `X-Agent-Purpose`; a trailing `*` matches by prefix; absent: any purpose. */
    purpose: z.string().optional(),
    /** Matches the requested model; absent: any model. */
    model: z.string().optional(),
    /** Every string must occur in the last `window` messages. */
    contains: stringList.optional(),
    window: z.number().int().min(1).default(1),
    /** How often this reply may be used; 0 = without limit. */
    times: z.number().int().min(0).default(1),
    content: z.string().optional(),
    /** Sent as the JSON text of the content. */
    json: z.unknown().optional(),
    tool_calls: z.array(ScriptedToolCall).optional(),
    finish_reason: z.enum(['stop', 'length', 'tool_calls', 'content_filter']).optional(),
    usage: z
      .object({
        prompt_tokens: z.number().int().min(0),
        completion_tokens: z.number().int().min(0),
      })
      .strict()
      .optional(),
    fault: z.union([z.enum(FAULT_NAMES), StatusFault]).optional(),
    /** Retry-After (seconds, or an HTTP date) sent with a fault. */
    retry_after: z.union([z.number().min(0), z.string()]).optional(),
    /** Answer only after this many milliseconds. */
    delay_ms: z.number().int().min(0).default(0),
  })
  .strict();
export type ScriptedReply = z.infer<typeof ScriptedReply>;
export type ScriptedReplyInput = z.input<typeof ScriptedReply>;

export const Scenario = z
  .object({
    /** Models listed by `/v1/models`. */
    models: z.array(z.string()).default(['scripted-model']),
    /** Whether JSON-schema response formats are accepted (false: 400, as some endpoints do). */
    json_schema: z.boolean().default(true),
    replies: z.array(ScriptedReply).default([]),
  })
  .strict();
export type Scenario = z.infer<typeof Scenario>;
export type ScenarioInput = z.input<typeof Scenario>;

/** Parses and validates a scenario from YAML text (or an object); bad input → ConfigError naming the key. */
export function loadScenario(source: string | ScenarioInput, where = 'scenario'): Scenario {
  let raw: unknown = source;
  if (typeof source === 'string') {
    try {
      raw = parseYaml(source) ?? {};
    } catch (error) {
      throw new ConfigError(`${where} is not valid YAML`, { where, cause: error });
    }
  }
  const parsed = Scenario.safeParse(raw);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map(
    (issue) => `${[where, ...issue.path].join('.')}: ${issue.message}`,
  );
  throw new ConfigError(`${where} is not a valid scripted-server scenario`, {
    where,
    problems,
    hint: problems.join('; '),
  });
}

export interface RequestFacts {
  purpose: string | undefined;
  model: string;
  /** Text of each message, in order. */
  messageTexts: readonly string[];
}

/** Whether a scripted reply answers this request (ignoring how often it was used). */
export function replyMatches(reply: ScriptedReply, facts: RequestFacts): boolean {
  if (reply.purpose !== undefined && !purposeMatches(reply.purpose, facts.purpose)) return false;
  if (reply.model !== undefined && reply.model !== facts.model) return false;
  if (reply.contains) {
    const recent = facts.messageTexts.slice(-reply.window).join('\n');
    if (!reply.contains.every((needle) => recent.includes(needle))) return false;
  }
  return true;
}

function purposeMatches(pattern: string, purpose: string | undefined): boolean {
  if (purpose === undefined) return false;
  if (pattern.endsWith('*')) return purpose.startsWith(pattern.slice(0, -1));
  return pattern === purpose;
}

/** A short description of a reply for error messages: `#3 purpose=planning contains="…"`. */
export function describeReply(reply: ScriptedReply, index: number): string {
  const parts = [`#${index + 1}`];
  if (reply.purpose) parts.push(`purpose=${reply.purpose}`);
  if (reply.model) parts.push(`model=${reply.model}`);
  if (reply.contains) parts.push(`contains=${JSON.stringify(reply.contains)}`);
  if (reply.fault) parts.push(`fault=${JSON.stringify(reply.fault)}`);
  return parts.join(' ');
}
