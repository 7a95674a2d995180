import { UsageError } from '../../errors/errors.ts';
import type { RunFactories } from './run-local.ts';

/** The production wiring of `mr-agent run`: the OpenAI-compatible adapter and the environment phase. */
export function defaultRunFactories(): RunFactories {
  return {
    createLlm() {
      throw new UsageError(
        '`mr-agent run` needs the OpenAI adapter, which is not in this build yet',
      );
    },
  };
}
