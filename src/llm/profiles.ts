import type { Config, LlmRole } from '../config/options.ts';
import type { Clock } from '../core/clock.ts';
import { priceOf, type KnownPrice } from './pricing.ts';

/**
 * Model profiles (docs/llm.md): for each role, the endpoint/model candidates in
 * the order they are tried. The first is the role's model (or `llm.model`)
 * on `llm.base_url`; then every entry of `llm.profiles` that serves the
 * role. A candidate that hit a rate limit cools down (`llm.cooldown_sec`,
 * 120 s) and the next one that is not cooling is used.
 */

export const DEFAULT_BASE_URL = 'https://api.openai.com/v1';

export interface ModelCandidate {
  /** The profile's name, or `<model>@<base URL>`. */
  name: string;
  baseURL: string;
  model: string;
  apiKeyVariable: string;
  /** USD per million tokens, when set (`llm.price`, or the profile's own `price`). */
  price?: KnownPrice;
}

export interface RoleSettings {
  reasoningEffort: 'minimal' | 'low' | 'medium' | 'high' | undefined;
  temperature: number | undefined;
}

type LlmConfig = Config['llm'];

export function candidatesFor(role: LlmRole, llm: LlmConfig): ModelCandidate[] {
  const baseURL = llm.base_url || DEFAULT_BASE_URL;
  const model = llm.roles[role].model || llm.model;
  const basePrice = priceOf(llm);
  const all: ModelCandidate[] = [
    {
      name: `${model}@${baseURL}`,
      baseURL,
      model,
      apiKeyVariable: llm.api_key_variable,
      ...(basePrice ? { price: basePrice } : {}),
    },
  ];
  for (const profile of llm.profiles) {
    if (profile.roles && !profile.roles.includes(role)) continue;
    const url = profile.base_url || baseURL;
    const price = priceOf(llm, profile.price);
    all.push({
      name: profile.name ?? `${profile.model}@${url}`,
      baseURL: url,
      model: profile.model,
      apiKeyVariable: profile.api_key_variable ?? llm.api_key_variable,
      ...(price ? { price } : {}),
    });
  }
  const seen = new Set<string>();
  return all.filter((c) => {
    const key = `${c.baseURL} ${c.model}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Every candidate of every role (for checking keys up front). */
export function allCandidates(llm: LlmConfig): ModelCandidate[] {
  const byName = new Map<string, ModelCandidate>();
  for (const role of Object.keys(llm.roles) as LlmRole[]) {
    for (const candidate of candidatesFor(role, llm)) byName.set(candidate.name, candidate);
  }
  return [...byName.values()];
}

export function roleSettings(role: LlmRole, llm: LlmConfig): RoleSettings {
  const { reasoning_effort: effort, temperature } = llm.roles[role];
  return {
    reasoningEffort: effort === '' ? undefined : effort,
    temperature: temperature < 0 ? undefined : temperature,
  };
}

/** Which candidates are cooling down after a rate limit, on the injected clock. */
export class CoolDowns {
  private readonly until = new Map<string, number>();

  constructor(
    private readonly clock: Clock,
    private readonly cooldownMs: number,
  ) {}

  coolDown(candidate: ModelCandidate): number {
    const until = this.clock.now() + this.cooldownMs;
    this.until.set(candidate.name, until);
    return until;
  }

  isCooling(candidate: ModelCandidate): boolean {
    return (this.until.get(candidate.name) ?? 0) > this.clock.now();
  }

  /** The first candidate not cooling down; when all are, the one whose cool-down ends first. */
  pick(candidates: readonly ModelCandidate[]): ModelCandidate {
    const ready = candidates.find((c) => !this.isCooling(c));
    if (ready) return ready;
    return [...candidates].sort(
      (a, b) => (this.until.get(a.name) ?? 0) - (this.until.get(b.name) ?? 0),
    )[0]!;
  }
}
