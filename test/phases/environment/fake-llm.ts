import type { ChatReply, JsonReply, JsonRequest, LlmPort } from '../../../src/core/llm-port.ts';

/**
 * A scripted LLM for phase tests: each `json()` call takes the next scripted
 * reply (validated against the request's schema, as the real adapter does) or
 * throws the scripted error. Unexpected calls fail the test.
 */
export class ScriptedJsonLlm implements LlmPort {
  readonly requests: JsonRequest<unknown>[] = [];
  private readonly replies: unknown[];

  constructor(replies: unknown[] = []) {
    this.replies = [...replies];
  }

  chat(): Promise<ChatReply> {
    return Promise.reject(
      new Error('unexpected chat() call: the environment phase only uses json()'),
    );
  }

  async json<T>(request: JsonRequest<T>): Promise<JsonReply<T>> {
    this.requests.push(request as JsonRequest<unknown>);
    if (this.replies.length === 0)
      throw new Error(`unexpected json() call #${this.requests.length} (${request.purpose})`);
    const next = this.replies.shift();
    if (next instanceof Error) throw next;
    const value = request.schema.parse(next);
    return {
      value,
      raw: JSON.stringify(next),
      usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
      reasks: 0,
    };
  }

  /** The scripted replies not yet used (should be none at the end of a test). */
  get unused(): number {
    return this.replies.length;
  }

  /** The user message of request `index`. */
  userMessage(index: number): string {
    const message = this.requests[index]?.messages.find((m) => m.role === 'user');
    return message && 'content' in message ? String(message.content) : '';
  }
}
