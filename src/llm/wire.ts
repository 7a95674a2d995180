import type {
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions/completions';
import * as z from 'zod';
import type { ChatMessage, ChatReply, ToolDefinition } from '../core/llm-port.ts';
import { MalformedReplyError } from './retry-policy.ts';

/** Port messages and tools → Chat Completions parameters, and a completion → the port's reply. */

export function toWireMessages(messages: readonly ChatMessage[]): ChatCompletionMessageParam[] {
  return messages.map((message): ChatCompletionMessageParam => {
    switch (message.role) {
      case 'system':
      case 'user':
        return { role: message.role, content: message.content };
      case 'assistant':
        return {
          role: 'assistant',
          content: message.content,
          ...(message.toolCalls?.length
            ? {
                tool_calls: message.toolCalls.map((call) => ({
                  id: call.id,
                  type: 'function' as const,
                  function: { name: call.name, arguments: call.arguments },
                })),
              }
            : {}),
        };
      case 'tool':
        return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
    }
  });
}

export function toWireTools(tools: readonly ToolDefinition[]): ChatCompletionTool[] {
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }));
}

/** Lenient: only what we read, so gateways that add or omit fields still work. */
const Completion = z.object({
  model: z.string().optional(),
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullish(),
          tool_calls: z
            .array(
              z.object({
                id: z.string(),
                type: z.string().optional(),
                function: z
                  .object({ name: z.string(), arguments: z.string().default('') })
                  .optional(),
              }),
            )
            .nullish(),
        }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
  usage: z
    .object({
      prompt_tokens: z.number().default(0),
      completion_tokens: z.number().default(0),
      total_tokens: z.number().optional(),
    })
    .nullish(),
});

export function fromCompletion(completion: unknown, requestedModel: string): ChatReply {
  const parsed = Completion.safeParse(completion);
  if (!parsed.success) {
    throw new MalformedReplyError(`not a chat completion: ${z.prettifyError(parsed.error)}`);
  }
  const { choices, usage, model } = parsed.data;
  const choice = choices[0]!;
  const prompt = usage?.prompt_tokens ?? 0;
  const completionTokens = usage?.completion_tokens ?? 0;
  return {
    content: choice.message.content ?? null,
    toolCalls: (choice.message.tool_calls ?? []).flatMap((call) =>
      call.function
        ? [{ id: call.id, name: call.function.name, arguments: call.function.arguments }]
        : [],
    ),
    finishReason: choice.finish_reason ?? 'stop',
    usage: {
      promptTokens: prompt,
      completionTokens,
      totalTokens: usage?.total_tokens ?? prompt + completionTokens,
    },
    model: model ?? requestedModel,
  };
}

/** Characters in a request's messages (for the log line of each call). */
export function promptChars(messages: readonly ChatMessage[]): number {
  let chars = 0;
  for (const message of messages) {
    chars += message.content?.length ?? 0;
    if (message.role === 'assistant') {
      for (const call of message.toolCalls ?? []) chars += call.arguments.length;
    }
  }
  return chars;
}
