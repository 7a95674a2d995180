import type { LlmRole } from '../config/options.ts';
import { askForJson } from '../llm/json-reply.ts';
import type {
  ChatMessage,
  ChatReply,
  ChatRequest,
  JsonReply,
  JsonRequest,
  LlmPort,
  LlmPurpose,
  TokenUsage,
} from '../core/llm-port.ts';
import { promptFiles } from '../llm/prompt-files.ts';
import { UsageLedger } from '../llm/usage-ledger.ts';

/**
 * An in-memory LLM for phase tests: replies are scripted per purpose, an
 * unexpected call fails loudly, and `assertAllUsed()` checks that every
 * scripted reply was consumed. `json()` goes through the same extraction,
 * validation and re-ask logic as the real adapter, so a scripted invalid
 * reply is re-asked and consumes the next step.
 */

export interface ScriptedStep {
  /** The purpose this step answers; a trailing `*` matches by prefix (`review.*`). */
  purpose: LlmPurpose | `${string}*`;
  role?: LlmRole;
  /** Every string must occur in the last message. */
  contains?: string | readonly string[];
  content?: string;
  /** Answered as its JSON text. */
  json?: unknown;
  toolCalls?: readonly { name: string; arguments?: unknown; id?: string }[];
  /** Thrown instead of answering (e.g. an ExternalServiceError). */
  error?: Error;
  usage?: Partial<TokenUsage>;
  /** How often this step may be used (default 1; 0 = without limit). */
  times?: number;
}

export interface ScriptedCall {
  kind: 'chat' | 'json';
  purpose: LlmPurpose;
  role: LlmRole;
  messages: readonly ChatMessage[];
  toolNames: readonly string[];
  /** Index of the step that answered. */
  step: number;
}

export interface ScriptedLlmOptions {
  /** Steps must be used in the order given, not just the first matching one. */
  ordered?: boolean;
  maxReasks?: number;
  model?: string;
  ledger?: UsageLedger;
}

export class ScriptedLlm implements LlmPort {
  readonly calls: ScriptedCall[] = [];
  readonly ledger: UsageLedger;
  private readonly left: number[];
  private readonly prompts = promptFiles<'json-reask'>();

  constructor(
    private readonly steps: readonly ScriptedStep[],
    private readonly options: ScriptedLlmOptions = {},
  ) {
    this.left = steps.map((step) => step.times ?? 1);
    this.ledger = options.ledger ?? new UsageLedger();
  }

  chat(request: ChatRequest): Promise<ChatReply> {
    return this.answer(request, 'chat');
  }

  json<T>(request: JsonRequest<T>): Promise<JsonReply<T>> {
    return askForJson(request, (messages) => this.answer({ ...request, messages }, 'json'), {
      maxReasks: this.options.maxReasks ?? 3,
      reaskTemplate: () => this.prompts.load('json-reask'),
    });
  }

  /** Steps not (fully) used, described. */
  remaining(): string[] {
    return this.steps.flatMap((step, index) =>
      (step.times ?? 1) !== 0 && this.left[index]! > 0 ? [describe(step, index)] : [],
    );
  }

  assertAllUsed(): void {
    const remaining = this.remaining();
    if (remaining.length > 0) {
      throw new Error(`ScriptedLlm: scripted replies were not used: ${remaining.join('; ')}`);
    }
  }

  private async answer(request: ChatRequest, kind: ScriptedCall['kind']): Promise<ChatReply> {
    const index = this.pick(request);
    const step = this.steps[index]!;
    this.calls.push({
      kind,
      purpose: request.purpose,
      role: request.role,
      messages: [...request.messages],
      toolNames: (request.tools ?? []).map((tool) => tool.name),
      step: index,
    });
    if (step.error) throw step.error;
    const content = step.json !== undefined ? JSON.stringify(step.json) : (step.content ?? null);
    const toolCalls = (step.toolCalls ?? []).map((call, n) => ({
      id: call.id ?? `call_${this.calls.length}_${n + 1}`,
      name: call.name,
      arguments:
        typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {}),
    }));
    const usage = usageOf(request.messages, content, step.usage);
    const model = this.options.model ?? 'scripted-model';
    this.ledger.record(request.role, request.purpose, model, usage);
    return {
      content: content ?? (toolCalls.length > 0 ? null : ''),
      toolCalls,
      finishReason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
      usage,
      model,
    };
  }

  private pick(request: ChatRequest): number {
    for (const [index, step] of this.steps.entries()) {
      const usable = (step.times ?? 1) === 0 || this.left[index]! > 0;
      if (!usable) continue;
      if (matches(step, request)) {
        if ((step.times ?? 1) !== 0) this.left[index]!--;
        return index;
      }
      if (this.options.ordered) break;
    }
    const last = request.messages.at(-1)?.content ?? '';
    throw new Error(
      `ScriptedLlm: unexpected call for purpose ${request.purpose} (role ${request.role}); ` +
        `last message: ${JSON.stringify(last.slice(0, 200))}; ` +
        `steps left: ${this.remaining().join('; ') || 'none'}`,
    );
  }
}

function matches(step: ScriptedStep, request: ChatRequest): boolean {
  const purposeOk = step.purpose.endsWith('*')
    ? request.purpose.startsWith(step.purpose.slice(0, -1))
    : step.purpose === request.purpose;
  if (!purposeOk) return false;
  if (step.role && step.role !== request.role) return false;
  if (step.contains === undefined) return true;
  const last = request.messages.at(-1)?.content ?? '';
  const needles = typeof step.contains === 'string' ? [step.contains] : step.contains;
  return needles.every((needle) => last.includes(needle));
}

function usageOf(
  messages: readonly ChatMessage[],
  content: string | null,
  given: Partial<TokenUsage> = {},
): TokenUsage {
  const promptChars = messages.reduce((sum, m) => sum + (m.content?.length ?? 0), 0);
  const promptTokens = given.promptTokens ?? Math.ceil(promptChars / 4) + 4 * messages.length;
  const completionTokens = given.completionTokens ?? Math.ceil((content?.length ?? 0) / 4) + 1;
  return {
    promptTokens,
    completionTokens,
    totalTokens: given.totalTokens ?? promptTokens + completionTokens,
  };
}

function describe(step: ScriptedStep, index: number): string {
  const contains = step.contains === undefined ? '' : ` contains=${JSON.stringify(step.contains)}`;
  return `#${index + 1} ${step.purpose}${contains}`;
}
