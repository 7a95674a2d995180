import type { TokenUsage } from './llm-port.ts';
import type { PlannedAction } from './plan.ts';

/** What the run keeps about each executed action (a "worker run" in the Task Note). */
export interface ToolCallRecord {
  name: string;
  ok: boolean;
  /** A short form of the arguments (paths, commands), for notes and logs. */
  brief: string;
  durationMs: number;
  /** The first characters of the output, for reflection and notes. */
  outputHead: string;
}

export interface ActionRecord {
  key: string;
  action: PlannedAction;
  status: 'success' | 'failure';
  /** The model's closing message (or why the action stopped). */
  summary: string;
  toolCalls: ToolCallRecord[];
  turns: number;
  startedAt: number;
  finishedAt: number;
  /** Set when the action failed: the reason in one line. */
  error?: string;
}

/** One JSON call to the model (planning, reflection, completion …) for the Task Note. */
export interface MetaCallLog {
  purpose: string;
  at: number;
  durationMs: number;
  /** Size of the request: messages and characters. */
  request: { messages: number; chars: number };
  /** The reply text (capped). */
  response: string;
  usage: TokenUsage;
  reasks: number;
}

export interface TestRun {
  command: string;
  cwd: string;
  exitCode: number | undefined;
  passed: boolean;
  timedOut: boolean;
  durationMs: number;
  /** The end of the output. */
  outputTail: string;
  /** Where the command came from. */
  source: 'task' | 'config' | 'detected';
}

export interface PurposeUsage extends TokenUsage {
  calls: number;
}

export interface TokenTotals extends TokenUsage {
  byPurpose: Record<string, PurposeUsage>;
  calls: number;
}

export function emptyUsage(): TokenUsage {
  return { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
}

/** Adds `usage` into `into`; the cost adds up when known, else stays absent. */
export function addUsage(into: TokenUsage, usage: TokenUsage): void {
  into.promptTokens += usage.promptTokens;
  into.completionTokens += usage.completionTokens;
  into.totalTokens += usage.totalTokens;
  if (usage.costUsd !== undefined) into.costUsd = (into.costUsd ?? 0) + usage.costUsd;
}

/** What delivery did with the finished change, for the notes and result.json. */
export interface DeliveryReport {
  /**
   * `pushed-elsewhere` / `patch-posted`: the change is not on the branch it
   * belongs on (`intendedBranch`, `notPushedReason`) but on `branch` or in a
   * patch note — "delivered elsewhere" (exit code 3).
   */
  status: 'pushed' | 'pushed-elsewhere' | 'no-changes' | 'disabled' | 'patch-posted';
  /** Where the change was pushed; for `patch-posted`, the branch it was meant for. */
  branch?: string;
  commit?: string;
  /** A page showing the pushed commit (GitLab), when known. */
  commitUrl?: string;
  mergeRequestUrl?: string;
  patchNoteUrl?: string;
  /** Why nothing was pushed, or not where it belongs. */
  notPushedReason?: string;
  /** The branch the change belongs on, when it went elsewhere (`pushed-elsewhere`). */
  intendedBranch?: string;
  /** The patch in the job artifacts (`.mr-agent/patch.diff`), when the change went elsewhere. */
  patchPath?: string;
}
