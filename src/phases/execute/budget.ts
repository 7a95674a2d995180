import type { ChatMessage } from '../../core/llm-port.ts';

/**
 * Context budget. Two rules keep the prompt of every model call
 * bounded however long the run gets:
 * - between actions, earlier actions are summarised into a fixed-size digest
 *   (`progressDigest` in src/core/progress/digest.ts);
 * - inside an action, once the messages pass the budget, older tool outputs
 *   and long tool-call arguments are replaced by one-line stubs.
 */
const KEEP_TOOL_RESULTS = 4;
const KEEP_ASSISTANT_TURNS = 2;
const LONG_ARGUMENTS = 400;

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
