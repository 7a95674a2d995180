import OpenAI from 'openai';
import type { Config } from '../config/options.ts';
import { CancelledError, ExternalServiceError, type HintKey } from '../errors/errors.ts';
import type { Logger } from '../log/logger.ts';
import { systemClock, type Clock } from '../core/clock.ts';
import { apiKeysOf } from './api-keys.ts';
import { askForJson } from './json-reply.ts';
import type { ChatReply, ChatRequest, JsonReply, JsonRequest, LlmPort } from '../core/llm-port.ts';
import { candidatesFor, CoolDowns, roleSettings, type ModelCandidate } from './profiles.ts';
import { promptFiles } from './prompt-files.ts';
import { responseFormatFor, type JsonSchemaFormat } from './response-format.ts';
import { backoffMs, classifyFailure, type Failure } from './retry-policy.ts';
import { withCost } from './pricing.ts';
import { isBudgetExhausted } from '../core/budget.ts';
import { UsageLedger } from './usage-ledger.ts';
import { fromCompletion, promptChars, toWireMessages, toWireTools } from './wire.ts';

export interface OpenAiLlmOptions {
  llm: Config['llm'];
  /** Where the API keys are read from (the variables named by `api_key_variable`). */
  env: Readonly<Record<string, string | undefined>>;
  logger: Logger;
  clock?: Clock;
  ledger?: UsageLedger;
  /** Overrides `llm.timeout_sec` (tests use tens of milliseconds). */
  timeoutMs?: number;
  /** `prompts.directory`: a folder whose prompt files override the built-in ones. */
  promptsDir?: string;
}

/**
 * The LLM port over the `openai` SDK (docs/llm.md): one client per
 * endpoint/model candidate, our own retry policy (the SDK's is off), model
 * profiles with cool-down, JSON-schema replies until the endpoint refuses
 * them, and token usage per role and purpose in `ledger`.
 */
export class OpenAiLlm implements LlmPort {
  readonly ledger: UsageLedger;
  private readonly llm: Config['llm'];
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly coolDowns: CoolDowns;
  private readonly clients = new Map<string, OpenAI>();
  private readonly keys: Map<string, string>;
  private readonly timeoutMs: number;
  private readonly prompts: { load(name: 'json-reask'): Promise<string> };
  private structuredRefused = false;

  constructor(options: OpenAiLlmOptions) {
    this.llm = options.llm;
    this.logger = options.logger;
    this.clock = options.clock ?? systemClock;
    this.ledger = options.ledger ?? new UsageLedger();
    this.timeoutMs = options.timeoutMs ?? options.llm.timeout_sec * 1000;
    this.coolDowns = new CoolDowns(this.clock, options.llm.cooldown_sec * 1000);
    this.prompts = promptFiles(options.promptsDir);
    this.keys = apiKeysOf(options.llm, options.env);
  }

  /** Whether JSON replies still ask for a JSON-schema response format. */
  get structuredOutput(): boolean {
    const mode = this.llm.structured_output;
    return mode === 'json_schema' || (mode === 'auto' && !this.structuredRefused);
  }

  chat(request: ChatRequest): Promise<ChatReply> {
    return this.complete(request, () => undefined);
  }

  json<T>(request: JsonRequest<T>): Promise<JsonReply<T>> {
    let format: JsonSchemaFormat | undefined;
    const formatNow = () => {
      if (!this.structuredOutput) return undefined;
      format ??= responseFormatFor(request.schema, request.schemaName);
      return format;
    };
    return askForJson(request, (messages) => this.complete({ ...request, messages }, formatNow), {
      maxReasks: this.llm.max_reasks,
      reaskTemplate: () => this.prompts.load('json-reask'),
      logger: this.logger,
    });
  }

  private async complete(
    request: ChatRequest,
    formatNow: () => JsonSchemaFormat | undefined,
  ): Promise<ChatReply> {
    const candidates = candidatesFor(request.role, this.llm);
    let attempts = 0;
    for (;;) {
      const candidate = this.coolDowns.pick(candidates);
      const format = formatNow();
      try {
        return await this.send(request, candidate, format);
      } catch (error) {
        if (isBudgetExhausted(error)) throw error;
        const failure = classifyFailure(error, this.clock.now(), format !== undefined);
        if (failure.kind === 'aborted') {
          throw new CancelledError('the LLM request was cancelled', {
            cause: error,
            where: request.purpose,
          });
        }
        if (failure.kind === 'format_refused' && this.llm.structured_output === 'auto') {
          this.structuredRefused = true;
          this.logger.warn('llm endpoint refused JSON-schema replies; plain replies from now on', {
            purpose: request.purpose,
            profile: candidate.name,
            status: failure.status,
          });
          continue;
        }
        if (!failure.retryable)
          throw serviceError(request, candidate, failure, error, attempts + 1);
        if (failure.kind === 'rate_limit' && this.fallOver(request, candidate, candidates))
          continue;
        attempts++;
        if (attempts >= this.llm.max_attempts) {
          throw serviceError(request, candidate, failure, error, attempts);
        }
        const delayMs = failure.retryAfterMs ?? backoffMs(attempts);
        this.logger.warn('llm request failed, retrying', {
          purpose: request.purpose,
          model: candidate.model,
          profile: candidate.name,
          attempt: attempts,
          maxAttempts: this.llm.max_attempts,
          delayMs,
          reason: failure.kind,
          status: failure.status,
          error: failure.message,
        });
        await this.clock.sleep(delayMs, request.signal).catch((abort: unknown) => {
          throw new CancelledError('the LLM request was cancelled', {
            cause: abort,
            where: request.purpose,
          });
        });
      }
    }
  }

  /** On a rate limit: cool the candidate down; true when another one is ready to take over. */
  private fallOver(
    request: ChatRequest,
    limited: ModelCandidate,
    candidates: readonly ModelCandidate[],
  ): boolean {
    this.coolDowns.coolDown(limited);
    const next = this.coolDowns.pick(candidates);
    if (next === limited || this.coolDowns.isCooling(next)) return false;
    this.logger.warn('llm profile rate-limited, using the next one', {
      purpose: request.purpose,
      from: limited.name,
      to: next.name,
      coolDownSec: this.llm.cooldown_sec,
    });
    return true;
  }

  private async send(
    request: ChatRequest,
    candidate: ModelCandidate,
    format: JsonSchemaFormat | undefined,
  ): Promise<ChatReply> {
    const settings = roleSettings(request.role, this.llm);
    const started = this.clock.now();
    this.logger.debug('llm request', { purpose: request.purpose, messages: request.messages });
    const messages = toWireMessages(request.messages);
    const tools = request.tools?.length ? toWireTools(request.tools) : undefined;
    // the budget sees what is sent: the messages, the tools and the response format
    const sentChars = request.meter
      ? JSON.stringify(messages).length +
        (tools ? JSON.stringify(tools).length : 0) +
        (format ? JSON.stringify(format).length : 0)
      : 0;
    const cap = request.meter?.admit({ promptChars: sentChars, price: candidate.price });
    const completion = await this.client(candidate).chat.completions.create(
      {
        model: candidate.model,
        messages,
        ...(tools ? { tools } : {}),
        ...(cap !== undefined ? { max_completion_tokens: cap } : {}),
        ...(format ? { response_format: format } : {}),
        ...(settings.reasoningEffort ? { reasoning_effort: settings.reasoningEffort } : {}),
        ...(settings.temperature !== undefined ? { temperature: settings.temperature } : {}),
      },
      { headers: { 'X-Agent-Purpose': request.purpose }, signal: request.signal },
    );
    const parsed = fromCompletion(completion, candidate.model);
    const reply = { ...parsed, usage: withCost(parsed.usage, candidate.price) };
    request.meter?.settle(reply.usage, { promptChars: sentChars });
    this.ledger.record(request.role, request.purpose, reply.model, reply.usage);
    this.logger.info('llm request finished', {
      purpose: request.purpose,
      role: request.role,
      model: reply.model,
      profile: candidate.name,
      promptChars: promptChars(request.messages),
      replyChars: reply.content?.length ?? 0,
      toolCalls: reply.toolCalls.length,
      structured: format !== undefined,
      promptTokens: reply.usage.promptTokens,
      completionTokens: reply.usage.completionTokens,
      durationMs: this.clock.now() - started,
    });
    return reply;
  }

  private client(candidate: ModelCandidate): OpenAI {
    let client = this.clients.get(candidate.name);
    if (!client) {
      client = new OpenAI({
        apiKey: this.keys.get(candidate.apiKeyVariable)!,
        baseURL: candidate.baseURL,
        timeout: this.timeoutMs,
        maxRetries: 0,
        organization: null,
        project: null,
        webhookSecret: null,
        logLevel: 'off',
      });
      this.clients.set(candidate.name, client);
    }
    return client;
  }
}

const HINTS: Readonly<Record<string, HintKey>> = {
  '401': 'hint.llm.401',
  '403': 'hint.llm.403',
  '404': 'hint.llm.404',
  retry: 'hint.llm.retry',
};

function serviceError(
  request: ChatRequest,
  candidate: ModelCandidate,
  failure: Failure,
  cause: unknown,
  attempts: number,
): ExternalServiceError {
  const what = failure.retryable
    ? `failed after ${attempts} attempt${attempts === 1 ? '' : 's'} (${failure.kind})`
    : `was refused (${failure.status ?? failure.kind})`;
  return new ExternalServiceError(
    'llm',
    `the ${request.purpose} request to ${candidate.model} ${what}: ${failure.message}`,
    {
      status: failure.status,
      credential: candidate.apiKeyVariable,
      retryAfterMs: failure.retryAfterMs,
      where: `${candidate.baseURL} (${candidate.model})`,
      hintKey: failure.retryable ? HINTS['retry'] : HINTS[String(failure.status)],
      cause,
    },
  );
}

/** The adapter for a resolved configuration (`llm.*`, `prompts.directory`). */
export function createOpenAiLlm(
  config: Pick<Config, 'llm' | 'prompts'>,
  deps: Omit<OpenAiLlmOptions, 'llm' | 'promptsDir'>,
): OpenAiLlm {
  return new OpenAiLlm({
    ...deps,
    llm: config.llm,
    promptsDir: config.prompts.directory || undefined,
  });
}
