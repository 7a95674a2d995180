import type { FaultName, ScriptedReply, StatusFault } from './scenario.ts';

/**
 * Bodies shaped like the real Chat Completions API: the completion object,
 * its usage block and the `{error: {...}}` body of failed requests.
 */

export interface ChatCompletionBody {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: {
    index: number;
    message: {
      role: 'assistant';
      content: string | null;
      refusal: null;
      annotations: [];
      tool_calls?: {
        id: string;
        type: 'function';
        function: { name: string; arguments: string };
      }[];
    };
    logprobs: null;
    finish_reason: string;
  }[];
  usage: UsageBody;
  service_tier: 'default';
  system_fingerprint: string;
}

export interface UsageBody {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number; audio_tokens: number };
  completion_tokens_details: {
    reasoning_tokens: number;
    audio_tokens: number;
    accepted_prediction_tokens: number;
    rejected_prediction_tokens: number;
  };
}

export interface ErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/** Roughly what a BPE tokenizer makes of English text and JSON: four characters a token. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Prompt tokens as the API counts them: the text plus a few tokens of framing per message. */
export function promptTokens(body: {
  messages: readonly unknown[];
  tools?: unknown;
  response_format?: unknown;
}): number {
  let tokens = 3;
  for (const message of body.messages) tokens += 4 + estimateTokens(JSON.stringify(message));
  if (body.tools) tokens += estimateTokens(JSON.stringify(body.tools));
  if (body.response_format) tokens += estimateTokens(JSON.stringify(body.response_format));
  return tokens;
}

export function completionBody(args: {
  reply: ScriptedReply;
  model: string;
  sequence: number;
  createdMs: number;
  promptTokens: number;
  /** The request's `max_completion_tokens` (or `max_tokens`): a longer reply is cut there. */
  maxCompletionTokens?: number | undefined;
}): ChatCompletionBody {
  const { reply, sequence } = args;
  const fullContent =
    reply.json !== undefined
      ? JSON.stringify(reply.json)
      : (reply.content ?? (reply.tool_calls ? null : ''));
  const toolCalls = reply.tool_calls?.map((call, index) => ({
    id: call.id ?? `call_${sequence}_${index + 1}`,
    type: 'function' as const,
    function: {
      name: call.name,
      arguments:
        typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
    },
  }));
  const completionText = (fullContent ?? '') + JSON.stringify(toolCalls ?? '');
  const wanted = reply.usage?.completion_tokens ?? estimateTokens(completionText) + 1;
  // as the API does: the completion stops at the cap, `finish_reason: length`
  const cap = args.maxCompletionTokens;
  const cut = cap !== undefined && wanted > cap;
  const completion = cut ? cap : wanted;
  const content = cut && fullContent !== null ? fullContent.slice(0, cap * 4) : fullContent;
  const prompt = reply.usage?.prompt_tokens ?? args.promptTokens;
  return {
    id: `chatcmpl-scripted${String(sequence).padStart(6, '0')}`,
    object: 'chat.completion',
    created: Math.floor(args.createdMs / 1000),
    model: args.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content,
          refusal: null,
          annotations: [],
          ...(toolCalls && toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: cut
          ? 'length'
          : (reply.finish_reason ?? (toolCalls?.length ? 'tool_calls' : 'stop')),
      },
    ],
    usage: usageBody(prompt, completion),
    service_tier: 'default',
    system_fingerprint: 'fp_scripted',
  };
}

function usageBody(prompt: number, completion: number): UsageBody {
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

export function errorBody(
  message: string,
  type: string,
  extra: { param?: string | null; code?: string | null } = {},
): ErrorBody {
  return { error: { message, type, param: extra.param ?? null, code: extra.code ?? null } };
}

type StatusFaultName = Exclude<FaultName, 'hang' | 'malformed' | 'reset'>;

/** The status and body the real API sends for each named fault. */
export const NAMED_FAULTS: Record<StatusFaultName, { status: number; body: ErrorBody }> = {
  rate_limit: {
    status: 429,
    body: errorBody('Rate limit reached for requests. Please try again in a moment.', 'requests', {
      code: 'rate_limit_exceeded',
    }),
  },
  server_error: {
    status: 500,
    body: errorBody(
      'The server had an error while processing your request. Sorry about that!',
      'server_error',
    ),
  },
  refuse_response_format: {
    status: 400,
    body: refuseResponseFormatBody(),
  },
  bad_request: {
    status: 400,
    body: errorBody("Invalid value for 'messages'.", 'invalid_request_error', {
      param: 'messages',
    }),
  },
  unauthorized: {
    status: 401,
    body: errorBody('Incorrect API key provided.', 'invalid_request_error', {
      code: 'invalid_api_key',
    }),
  },
  forbidden: {
    status: 403,
    body: errorBody('You are not allowed to use this model.', 'permission_error', {
      code: 'model_not_allowed',
    }),
  },
};

export function refuseResponseFormatBody(): ErrorBody {
  return errorBody(
    "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
    'invalid_request_error',
    { param: 'response_format' },
  );
}

export function statusFaultBody(fault: StatusFault): ErrorBody {
  const type = fault.type ?? (fault.status >= 500 ? 'server_error' : 'invalid_request_error');
  const message = fault.message ?? `Scripted error with status ${fault.status}.`;
  return errorBody(message, type, { param: fault.param ?? null, code: fault.code ?? null });
}
