import type { LlmRole } from '../config/options.ts';
import type { LlmPurpose, TokenUsage } from '../core/llm-port.ts';

/**
 * Token usage of a run, per role, purpose and model (the progress note
 * shows it; result.json carries the totals). `costUsd`
 * sums the estimated cost of the calls whose model has prices (src/llm/pricing.ts).
 */
export interface UsageRow extends TokenUsage {
  role: LlmRole;
  purpose: LlmPurpose;
  model: string;
  calls: number;
}

export interface UsageTotal extends TokenUsage {
  calls: number;
}

export class UsageLedger {
  private readonly rows = new Map<string, UsageRow>();

  record(role: LlmRole, purpose: LlmPurpose, model: string, usage: TokenUsage): void {
    const key = `${role}\u0000${purpose}\u0000${model}`;
    const row = this.rows.get(key) ?? {
      role,
      purpose,
      model,
      calls: 0,
      ...emptyUsage(),
    };
    row.calls++;
    add(row, usage);
    this.rows.set(key, row);
  }

  /** One row per role, purpose and model, in the order they first appeared. */
  entries(): UsageRow[] {
    return [...this.rows.values()].map((row) => ({ ...row }));
  }

  total(): UsageTotal {
    return this.sum(() => 'all').get('all') ?? { calls: 0, ...emptyUsage() };
  }

  byRole(): Map<LlmRole, UsageTotal> {
    return this.sum((row) => row.role);
  }

  byPurpose(): Map<LlmPurpose, UsageTotal> {
    return this.sum((row) => row.purpose);
  }

  private sum<K>(keyOf: (row: UsageRow) => K): Map<K, UsageTotal> {
    const totals = new Map<K, UsageTotal>();
    for (const row of this.rows.values()) {
      const key = keyOf(row);
      const total = totals.get(key) ?? { calls: 0, ...emptyUsage() };
      total.calls += row.calls;
      add(total, row);
      totals.set(key, total);
    }
    return totals;
  }
}

export function emptyUsage(): TokenUsage {
  return { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
}

export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  const sum = { ...a };
  add(sum, b);
  return sum;
}

function add(target: TokenUsage, usage: TokenUsage): void {
  target.promptTokens += usage.promptTokens;
  target.completionTokens += usage.completionTokens;
  target.totalTokens += usage.totalTokens;
  if (usage.costUsd !== undefined) target.costUsd = (target.costUsd ?? 0) + usage.costUsd;
}
