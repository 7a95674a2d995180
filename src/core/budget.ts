import { LimitReachedError } from '../errors/errors.ts';
import type {
  CallMeter,
  CallPrice,
  ChatReply,
  ChatRequest,
  JsonReply,
  JsonRequest,
  LlmPort,
  TokenUsage,
} from './llm-port.ts';

/**
 * A run's spend limits. `maxUsd` and `maxTokens` bound this run;
 * `mrMaxUsd` bounds every run on the merge request or issue together, of
 * which `mrSpentUsd` went to the earlier ones. A USD limit only applies to
 * calls whose model has prices.
 */
export interface BudgetLimits {
  maxUsd?: number | undefined;
  maxTokens?: number | undefined;
  mrMaxUsd?: number | undefined;
  mrSpentUsd?: number | undefined;
}

/** What the run spent, against which limits (the progress note's status line). */
export interface BudgetSpend {
  spentUsd: number;
  spentTokens: number;
  /** Whether any call had a price (without one, only the token limit applies). */
  priced: boolean;
  limitUsd?: number;
  limitTokens?: number;
  /** The merge request's limit and what all its runs spent, this one included. */
  mrLimitUsd?: number;
  mrSpentUsd?: number;
  /** Set once the budget refused a call: the limit the call would have passed. */
  stoppedBy?: BudgetStop['limit'];
}

/** Why the budget stopped the run: the limit that a next call would have passed. */
export interface BudgetStop {
  limit: 'max_usd' | 'max_tokens' | 'mr_max_usd';
  spend: BudgetSpend;
  /** The projected cost of the call that was not made. */
  projectedTokens: number;
  projectedUsd?: number;
}

/** Thrown instead of making an LLM call that would pass the budget. */
export class BudgetExhaustedError extends LimitReachedError {
  readonly stop: BudgetStop;

  constructor(stop: BudgetStop) {
    super(
      `budget.${stop.limit}`,
      stop.limit === 'max_tokens' ? (stop.spend.limitTokens ?? 0) : (stop.spend.limitUsd ?? 0),
      `the next LLM call would pass the budget (budget.${stop.limit})`,
      { where: `budget.${stop.limit}` },
    );
    this.stop = stop;
  }
}

/** The completion cap of a call when the budget leaves room for more (the model's usual reply fits). */
export const DEFAULT_COMPLETION_CAP = 4096;
/** Below this many completion tokens a reply is too short to be of use: the run stops instead. */
export const MIN_COMPLETION_TOKENS = 256;
/**
 * Prompt tokens per character before any reply told the real count: a
 * little more than the usual four characters a token, so code and JSON
 * are not underestimated.
 */
const INITIAL_TOKENS_PER_CHAR = 0.3;
/** The estimate's margin over the highest ratio seen so far. */
const RATIO_MARGIN = 1.03;

function costUsd(prompt: number, completion: number, price: CallPrice): number {
  return (prompt * price.inputPerMtok + completion * price.outputPerMtok) / 1_000_000;
}

/**
 * The run's budget: before each LLM call it projects the call's cost (the
 * prompt's tokens, estimated from its characters and calibrated by the
 * counts replies report, plus the completion cap) and refuses the call
 * when that would pass a limit; otherwise it caps the completion so the
 * call fits. After each call it adds what the reply says was used.
 */
export class RunBudget implements CallMeter {
  private spentUsd = 0;
  private spentTokens = 0;
  private priced = false;
  private tokensPerChar = INITIAL_TOKENS_PER_CHAR;
  private stopped: BudgetStop | undefined;
  private readonly listeners: Array<(spend: BudgetSpend) => void> = [];

  constructor(readonly limits: BudgetLimits) {}

  /** Whether any limit is set at all. */
  get active(): boolean {
    const l = this.limits;
    return l.maxUsd !== undefined || l.maxTokens !== undefined || l.mrMaxUsd !== undefined;
  }

  /** Set once a call was refused: the run ends as `budget_exhausted`. */
  get stop(): BudgetStop | undefined {
    return this.stopped;
  }

  onSpend(listener: (spend: BudgetSpend) => void): void {
    this.listeners.push(listener);
  }

  spend(): BudgetSpend {
    const l = this.limits;
    const usdLimit = l.maxUsd;
    return {
      spentUsd: this.spentUsd,
      spentTokens: this.spentTokens,
      priced: this.priced,
      ...(usdLimit !== undefined ? { limitUsd: usdLimit } : {}),
      ...(l.maxTokens !== undefined ? { limitTokens: l.maxTokens } : {}),
      ...(l.mrMaxUsd !== undefined
        ? { mrLimitUsd: l.mrMaxUsd, mrSpentUsd: (l.mrSpentUsd ?? 0) + this.spentUsd }
        : {}),
      ...(this.stopped ? { stoppedBy: this.stopped.limit } : {}),
    };
  }

  /** USD this run may still spend under both USD limits; undefined when none is set. */
  private usdLeft(): { left: number; limit: BudgetStop['limit'] } | undefined {
    const l = this.limits;
    const run = l.maxUsd !== undefined ? l.maxUsd - this.spentUsd : undefined;
    const mr =
      l.mrMaxUsd !== undefined ? l.mrMaxUsd - (l.mrSpentUsd ?? 0) - this.spentUsd : undefined;
    if (run === undefined && mr === undefined) return undefined;
    if (mr === undefined || (run !== undefined && run <= mr))
      return { left: run!, limit: 'max_usd' };
    return { left: mr, limit: 'mr_max_usd' };
  }

  /** Estimated prompt tokens of `chars` characters sent. */
  estimatePromptTokens(chars: number): number {
    return Math.ceil(chars * this.tokensPerChar);
  }

  admit(call: { promptChars: number; price?: CallPrice | undefined }): number | undefined {
    if (this.stopped) throw new BudgetExhaustedError(this.stopped);
    if (!this.active) return undefined;
    const prompt = this.estimatePromptTokens(call.promptChars);
    let cap = DEFAULT_COMPLETION_CAP;
    let limit: BudgetStop['limit'] | undefined;
    if (this.limits.maxTokens !== undefined) {
      const room = this.limits.maxTokens - this.spentTokens - prompt;
      if (room < cap) {
        cap = room;
        limit = 'max_tokens';
      }
    }
    const usd = call.price ? this.usdLeft() : undefined;
    if (usd && call.price) {
      const promptUsd = costUsd(prompt, 0, call.price);
      const room =
        call.price.outputPerMtok > 0
          ? Math.floor(((usd.left - promptUsd) * 1_000_000) / call.price.outputPerMtok)
          : usd.left - promptUsd >= 0
            ? Number.POSITIVE_INFINITY
            : -1;
      if (room < cap) {
        cap = room;
        limit = usd.limit;
      }
    }
    const wanted = Math.min(DEFAULT_COMPLETION_CAP, MIN_COMPLETION_TOKENS);
    if (cap < wanted) {
      this.stopped = {
        limit: limit ?? 'max_tokens',
        spend: this.spend(),
        projectedTokens: prompt + wanted,
        ...(call.price ? { projectedUsd: costUsd(prompt, wanted, call.price) } : {}),
      };
      this.notify();
      throw new BudgetExhaustedError(this.stopped);
    }
    return Math.floor(cap);
  }

  settle(usage: TokenUsage, call: { promptChars: number }): void {
    this.spentTokens += usage.promptTokens + usage.completionTokens;
    if (usage.costUsd !== undefined) {
      this.spentUsd += usage.costUsd;
      this.priced = true;
    }
    if (call.promptChars > 0 && usage.promptTokens > 0) {
      const seen = (usage.promptTokens / call.promptChars) * RATIO_MARGIN;
      if (seen > this.tokensPerChar) this.tokensPerChar = seen;
    }
    this.notify();
  }

  private notify(): void {
    const spend = this.spend();
    for (const listener of this.listeners) listener(spend);
  }
}

/**
 * The LLM port with the run's budget attached to every request: the
 * adapter asks it before each call it sends (re-asks and retries included)
 * and tells it what each call used.
 */
export function meteredLlm(inner: LlmPort, meter: CallMeter): LlmPort {
  return {
    chat: (request: ChatRequest): Promise<ChatReply> => inner.chat({ ...request, meter }),
    json: <T>(request: JsonRequest<T>): Promise<JsonReply<T>> => inner.json({ ...request, meter }),
  };
}

/** Whether `error` is the budget's refusal (by name too: a module loaded twice makes a second class). */
export function isBudgetExhausted(error: unknown): error is BudgetExhaustedError {
  return (
    error instanceof BudgetExhaustedError ||
    (error instanceof Error && error.name === 'BudgetExhaustedError' && 'stop' in error)
  );
}
