import type { Config, ModelPrice } from '../config/options.ts';
import type { TokenUsage } from '../core/llm-port.ts';

/**
 * The cost estimate shown in the progress note: tokens × USD per million tokens, from
 * `llm.price` or a profile's own `price`. A price of 0 (the default) is
 * unknown; with neither price known there is no cost, only tokens.
 */
export interface KnownPrice {
  inputPerMtok: number;
  outputPerMtok: number;
}

/** The prices of a candidate: the profile's own, else `llm.price`; undefined when none is set. */
export function priceOf(llm: Config['llm'], own?: ModelPrice): KnownPrice | undefined {
  const input = own?.input_per_mtok ?? llm.price.input_per_mtok;
  const output = own?.output_per_mtok ?? llm.price.output_per_mtok;
  if (!(input > 0) && !(output > 0)) return undefined;
  return { inputPerMtok: input, outputPerMtok: output };
}

/** The usage with its cost added, when the price is known. */
export function withCost(usage: TokenUsage, price: KnownPrice | undefined): TokenUsage {
  if (!price) return usage;
  const costUsd =
    (usage.promptTokens * price.inputPerMtok + usage.completionTokens * price.outputPerMtok) /
    1_000_000;
  return { ...usage, costUsd };
}
