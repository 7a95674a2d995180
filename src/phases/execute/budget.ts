import type { ChatMessage } from '../../llm/port.ts';
import type { PlanStep } from '../plan/steps.ts';
import type { ActionRecord } from '../../run/records.ts';

/**
 * Context budget (SPEC K4). Two rules keep the prompt of every model call
 * bounded however long the run gets:
 * - between actions, earlier actions are summarised into a fixed-size digest
 *   (counts, the last few actions, a capped list of changed files);
 * - inside an action, once the messages pass the budget, older tool outputs
 *   and long tool-call arguments are replaced by one-line stubs.
 */
export const RECENT_ACTIONS = 3;
export const LISTED_FILES = 20;
export const UPCOMING_STEPS = 3;
const RECENT_SUMMARY_CHARS = 300;
const KEEP_TOOL_RESULTS = 4;
const KEEP_ASSISTANT_TURNS = 2;
const LONG_ARGUMENTS = 400;

export function progressDigest(input: {
  actions: readonly ActionRecord[];
  upcoming: readonly PlanStep[];
  changedFiles: ReadonlySet<string>;
}): string {
  const { actions, upcoming } = input;
  const failed = actions.filter((a) => a.status === 'failure').length;
  const lines = [`Actions executed so far: ${actions.length} (${failed} failed).`];
  const older = actions.length - RECENT_ACTIONS;
  if (older > 0) lines.push(`(${older} earlier actions are not shown.)`);
  for (const a of actions.slice(-RECENT_ACTIONS)) {
    lines.push(
      `- ${a.key} ${a.action.task_id} [${a.status}] ${a.action.purpose.slice(0, 120)}: ${a.summary.slice(0, RECENT_SUMMARY_CHARS)}`,
    );
  }
  const files = [...input.changedFiles];
  if (files.length > 0) {
    const shown = files.slice(-LISTED_FILES);
    const more = files.length - shown.length;
    lines.push(`Files changed so far: ${shown.join(', ')}${more > 0 ? ` (and ${more} more)` : ''}`);
  }
  if (upcoming.length > 0) {
    const next = upcoming
      .slice(0, UPCOMING_STEPS)
      .map((s) => `${s.action.task_id}: ${s.action.purpose.slice(0, 100)}`);
    const more = upcoming.length - next.length;
    lines.push(
      `Coming after this action: ${next.join('; ')}${more > 0 ? `; and ${more} more` : ''}`,
    );
  }
  return lines.join('\n');
}

export function messageChars(messages: readonly ChatMessage[]): number {
  let chars = 0;
  for (const m of messages) {
    chars += (m.content ?? '').length;
    if (m.role === 'assistant') for (const c of m.toolCalls ?? []) chars += c.arguments.length;
  }
  return chars;
}

function shortArguments(text: string): string {
  try {
    const value = JSON.parse(text) as Record<string, unknown>;
    const short: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value))
      short[key] = typeof v === 'string' && v.length > 120 ? `[${v.length} characters elided]` : v;
    return JSON.stringify(short);
  } catch {
    return JSON.stringify({ elided: `${text.length} characters` });
  }
}

/** Shrinks older parts of an action's conversation in place until it fits `budgetChars`. */
export function compactMessages(messages: ChatMessage[], budgetChars: number): void {
  if (messageChars(messages) <= budgetChars) return;
  const toolIndexes = messages.flatMap((m, i) => (m.role === 'tool' ? [i] : []));
  for (const i of toolIndexes.slice(0, -KEEP_TOOL_RESULTS)) {
    const m = messages[i] as Extract<ChatMessage, { role: 'tool' }>;
    if (m.content.startsWith('[elided')) continue;
    messages[i] = {
      ...m,
      content: `[elided: earlier tool output of ${m.content.length} characters]`,
    };
    if (messageChars(messages) <= budgetChars) return;
  }
  const assistantIndexes = messages.flatMap((m, i) => (m.role === 'assistant' ? [i] : []));
  for (const i of assistantIndexes.slice(0, -KEEP_ASSISTANT_TURNS)) {
    const m = messages[i] as Extract<ChatMessage, { role: 'assistant' }>;
    if (!m.toolCalls?.some((c) => c.arguments.length > LONG_ARGUMENTS)) continue;
    messages[i] = {
      ...m,
      toolCalls: m.toolCalls.map((c) =>
        c.arguments.length > LONG_ARGUMENTS ? { ...c, arguments: shortArguments(c.arguments) } : c,
      ),
    };
    if (messageChars(messages) <= budgetChars) return;
  }
}
