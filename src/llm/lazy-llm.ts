import type { Config } from '../config/options.ts';
import type { ChatRequest, JsonRequest, LlmPort } from '../core/llm-port.ts';
import { apiKeysOf } from './api-keys.ts';
import type { OpenAiLlmOptions } from './openai-llm.ts';

/**
 * The OpenAI-compatible model whose SDK and client are loaded and built at
 * the first request, so a CI job starts sooner: it posts its progress note
 * before it loads the model's half. The API keys are checked at once, so a missing one
 * still stops the job before anything is posted.
 */
export function lazyOpenAiLlm(
  config: Pick<Config, 'llm' | 'prompts'>,
  deps: Omit<OpenAiLlmOptions, 'llm' | 'promptsDir'>,
): LlmPort {
  apiKeysOf(config.llm, deps.env);
  let made: Promise<LlmPort> | undefined;
  const llm = () =>
    (made ??= import('./openai-llm.ts').then(({ createOpenAiLlm }) =>
      createOpenAiLlm(config, deps),
    ));
  return {
    chat: async (request: ChatRequest) => (await llm()).chat(request),
    json: async <T>(request: JsonRequest<T>) => (await llm()).json(request),
  };
}
