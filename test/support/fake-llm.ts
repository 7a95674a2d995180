import { z } from 'zod';
import { ModelBehaviorError } from '../../src/errors/errors.ts';
import type {
  ChatMessage,
  ChatReply,
  ChatRequest,
  JsonReply,
  JsonRequest,
  LlmPort,
  LlmPurpose,
  ToolCall,
} from '../../src/llm/port.ts';

/**
 * A scripted in-memory LLM for phase and scenario tests (GUIDE #3): each call
 * consumes the next step, a call of another purpose or beyond the script
 * fails the test, and `assertDone()` checks every step was used.
 * (Temporary: replaced by src/testkit/scripted-llm.ts once that lands.)
 */
export type Step =
  | { purpose: LlmPurpose; chat: { content?: string | null; toolCalls?: ToolCall[] } }
  | { purpose: LlmPurpose; json: unknown }
  | { purpose: LlmPurpose; error: Error };

export interface RecordedCall {
  kind: 'chat' | 'json';
  purpose: LlmPurpose;
  messages: ChatMessage[];
  promptChars: number;
}

let callIds = 0;

export function toolCall(name: string, args: Record<string, unknown>): ToolCall {
  callIds += 1;
  return { id: `call_${callIds}`, name, arguments: JSON.stringify(args) };
}

/** Steps for one execution turn that calls tools, and for the closing message. */
export const exec = {
  tools: (...toolCalls: ToolCall[]): Step => ({ purpose: 'execution', chat: { toolCalls } }),
  say: (content: string): Step => ({ purpose: 'execution', chat: { content } }),
};

export function json(purpose: LlmPurpose, value: unknown): Step {
  return { purpose, json: value };
}

export function charsOf(messages: readonly ChatMessage[]): number {
  let chars = 0;
  for (const m of messages) {
    chars += (m.content ?? '').length;
    if (m.role === 'assistant') for (const c of m.toolCalls ?? []) chars += c.arguments.length;
  }
  return chars;
}

/** Roughly four characters per token, as for English text. */
export const tokensFor = (chars: number) => Math.ceil(chars / 4);

export class FakeLlm implements LlmPort {
  readonly calls: RecordedCall[] = [];
  private index = 0;

  constructor(private readonly steps: Step[]) {}

  private next(kind: 'chat' | 'json', request: ChatRequest | JsonRequest<unknown>): Step {
    const promptChars = charsOf(request.messages);
    this.calls.push({
      kind,
      purpose: request.purpose,
      messages: [...request.messages],
      promptChars,
    });
    const step = this.steps[this.index];
    if (!step)
      throw new Error(
        `FakeLlm: unexpected ${kind} call #${this.index + 1} (${request.purpose}); the script has ${this.steps.length} steps`,
      );
    if (step.purpose !== request.purpose)
      throw new Error(
        `FakeLlm: call #${this.index + 1} has purpose ${request.purpose}, the script expects ${step.purpose}`,
      );
    this.index += 1;
    if ('error' in step) throw step.error;
    return step;
  }

  async chat(request: ChatRequest): Promise<ChatReply> {
    const step = this.next('chat', request);
    if (!('chat' in step)) throw new Error(`FakeLlm: step #${this.index} is not a chat step`);
    const content = step.chat.content ?? null;
    return {
      content,
      toolCalls: step.chat.toolCalls ?? [],
      finishReason: step.chat.toolCalls?.length ? 'tool_calls' : 'stop',
      usage: usage(charsOf(request.messages), (content ?? '').length),
      model: 'fake',
    };
  }

  async json<T>(request: JsonRequest<T>): Promise<JsonReply<T>> {
    const step = this.next('json', request);
    if (!('json' in step)) throw new Error(`FakeLlm: step #${this.index} is not a json step`);
    const raw = JSON.stringify(step.json);
    const parsed = request.schema.safeParse(step.json);
    if (!parsed.success)
      throw new ModelBehaviorError(
        `the ${request.purpose} reply did not match ${request.schemaName}: ${z.prettifyError(parsed.error)}`,
        { purpose: request.purpose },
      );
    return {
      value: parsed.data,
      raw,
      usage: usage(charsOf(request.messages), raw.length),
      reasks: 0,
    };
  }

  get remaining(): number {
    return this.steps.length - this.index;
  }

  assertDone(): void {
    if (this.index !== this.steps.length)
      throw new Error(`FakeLlm: ${this.steps.length - this.index} scripted steps were not used`);
  }
}

function usage(promptChars: number, replyChars: number) {
  const promptTokens = tokensFor(promptChars);
  const completionTokens = tokensFor(replyChars);
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens };
}
