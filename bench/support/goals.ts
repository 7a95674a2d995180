// The goal rows every bench reports: `npm run bench` (bench/index.ts)
// collects them from each bench's output and prints one table of goal,
// figure, baseline, ratio and verdict at the end.

export interface GoalRow {
  /** The goal, with its threshold (`--version ≤ 3× node -e 0`). */
  goal: string;
  /** What was measured, with its unit. */
  figure: string;
  /** What it is compared with, measured in the same run ('' when the goal is absolute). */
  baseline: string;
  /** figure / baseline (or the figure against an absolute threshold), as printed. */
  ratio: string;
  verdict: 'met' | 'missed' | 'info';
}

/** Prefix of the output lines that carry a goal row. */
export const GOAL_MARK = '@@goal ';

export function reportGoal(row: GoalRow): void {
  console.log(`${GOAL_MARK}${JSON.stringify(row)}`);
}

export function verdictOf(met: boolean): GoalRow['verdict'] {
  return met ? 'met' : 'missed';
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export const ms = (value: number): string => `${value.toFixed(1)} ms`;
export const times = (value: number): string => `${value.toFixed(2)}×`;
