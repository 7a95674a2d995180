import type * as z from 'zod';
import type { LlmRole } from '../config/options.ts';

/**
 * The LLM port. Phases depend on this interface only; the real adapter
 * (openai SDK, retries, profiles) and the test doubles implement it.
 *
 * Every request names its purpose; the adapter sends it as the
 * `X-Agent-Purpose` header (SPEC contracts).
 */
export type LlmPurpose =
  | 'planning'
  | 'execution'
  | 'reflection'
  | 'environment.regenerate'
  | 'completion'
  | 'clarification'
  | `replan.${string}`
  | `review.${string}`
  | `revise.${string}`;

export interface ToolCall {
  id: string;
  name: string;
  /** The raw JSON text of the arguments, as the model sent it. */
  arguments: string;
}

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; content: string };

export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON schema of the arguments object. */
  parameters: Record<string, unknown>;
}

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** Estimated cost of these tokens in USD, when the model's prices are set. */
  costUsd?: number;
}

/** USD per million tokens of the model a call goes to. */
export interface CallPrice {
  inputPerMtok: number;
  outputPerMtok: number;
}

/**
 * The run's budget as the adapter sees it: asked before every call it
 * sends (re-asks and retries too) with the characters of the request,
 * it answers the completion cap to send (undefined: none) or throws
 * when the call would pass the budget; told afterwards what the call used.
 */
export interface CallMeter {
  admit(call: { promptChars: number; price?: CallPrice | undefined }): number | undefined;
  settle(usage: TokenUsage, call: { promptChars: number }): void;
}

export interface ChatRequest {
  purpose: LlmPurpose;
  role: LlmRole;
  messages: readonly ChatMessage[];
  tools?: readonly ToolDefinition[];
  signal?: AbortSignal;
  /** The run's budget; absent: no limit. */
  meter?: CallMeter;
}

export interface ChatReply {
  content: string | null;
  toolCalls: ToolCall[];
  finishReason: string;
  usage: TokenUsage;
  model: string;
}

export interface JsonRequest<T> {
  purpose: LlmPurpose;
  role: LlmRole;
  messages: readonly ChatMessage[];
  /** The shape the reply must have; failed validation is sent back to the model. */
  schema: z.ZodType<T>;
  /** Name of the schema in a JSON-schema response format. */
  schemaName: string;
  signal?: AbortSignal;
  /** The run's budget; absent: no limit. */
  meter?: CallMeter;
}

export interface JsonReply<T> {
  value: T;
  /** The text the model answered with (last attempt). */
  raw: string;
  usage: TokenUsage;
  /** Re-asks needed before the reply validated. */
  reasks: number;
}

export interface LlmPort {
  /** One chat completion, tools allowed. */
  chat(request: ChatRequest): Promise<ChatReply>;
  /** A JSON reply validated against `schema`, re-asked on failure (bounded). */
  json<T>(request: JsonRequest<T>): Promise<JsonReply<T>>;
}
