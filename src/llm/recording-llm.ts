import type {
  ChatReply,
  ChatRequest,
  JsonReply,
  JsonRequest,
  LlmPort,
  TokenUsage,
} from '../core/llm-port.ts';
import type { Redactor } from '../log/redact.ts';
import type { Clock } from '../core/clock.ts';
import type { RecordedLlm } from '../core/run-context.ts';
import { addUsage, emptyUsage, type MetaCallLog, type TokenTotals } from '../core/records.ts';

const RESPONSE_CHARS = 4000;

function requestSize(request: { messages: ChatRequest['messages'] }): {
  messages: number;
  chars: number;
} {
  let chars = 0;
  for (const m of request.messages) {
    chars += (m.content ?? '').length;
    if (m.role === 'assistant') for (const c of m.toolCalls ?? []) chars += c.arguments.length;
  }
  return { messages: request.messages.length, chars };
}

/**
 * The run's view of the LLM port: passes the run's abort signal, adds up
 * token usage per purpose and keeps a log of the JSON ("meta") calls for the
 * Task Note. Every chat call's prompt size is kept too (K4 benchmark).
 */
export class RecordingLlm implements RecordedLlm {
  readonly tokens: TokenTotals = { ...emptyUsage(), byPurpose: {}, calls: 0 };
  readonly metaCalls: MetaCallLog[] = [];
  /** Characters sent per call, in order (prompt size per step). */
  readonly promptChars: Array<{ purpose: string; chars: number; promptTokens: number }> = [];

  constructor(
    private readonly inner: LlmPort,
    private readonly clock: Clock,
    private readonly redactor: Redactor,
    private readonly signal: AbortSignal | undefined,
  ) {}

  private count(purpose: string, usage: TokenUsage, chars: number): void {
    addUsage(this.tokens, usage);
    this.tokens.calls += 1;
    const slot = (this.tokens.byPurpose[purpose] ??= { ...emptyUsage(), calls: 0 });
    addUsage(slot, usage);
    slot.calls += 1;
    this.promptChars.push({ purpose, chars, promptTokens: usage.promptTokens });
  }

  async chat(request: ChatRequest): Promise<ChatReply> {
    const reply = await this.inner.chat({ ...request, signal: request.signal ?? this.signal });
    this.count(request.purpose, reply.usage, requestSize(request).chars);
    return reply;
  }

  async json<T>(request: JsonRequest<T>): Promise<JsonReply<T>> {
    const started = this.clock.now();
    const reply = await this.inner.json({ ...request, signal: request.signal ?? this.signal });
    const size = requestSize(request);
    this.count(request.purpose, reply.usage, size.chars);
    this.metaCalls.push({
      purpose: request.purpose,
      at: started,
      durationMs: this.clock.now() - started,
      request: size,
      response: this.redactor.redact(reply.raw).slice(0, RESPONSE_CHARS),
      usage: reply.usage,
      reasks: reply.reasks,
    });
    return reply;
  }
}
