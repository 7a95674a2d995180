import { createOpenAiLlm } from '../../llm/openai-llm.ts';
import type { RunFactories } from './run-services.ts';

/** The production wiring of `mr-agent run`: any OpenAI-compatible endpoint (docs/llm.md). */
export function defaultRunFactories(): RunFactories {
  return {
    createLlm: (config, env, logger, clock) => createOpenAiLlm(config, { env, logger, clock }),
  };
}
