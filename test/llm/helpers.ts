import type { Config } from '../../src/config/options.ts';
import { isResolved, resolveConfig } from '../../src/config/resolve.ts';
import { createMemoryLogger, type Logger } from '../../src/log/logger.ts';
import { Redactor } from '../../src/log/redact.ts';
import { OpenAiLlm } from '../../src/llm/openai-llm.ts';
import { FakeClock } from '../../src/core/clock.ts';
import {
  startScriptedOpenAiServer,
  type ScriptedOpenAiServer,
} from '../../src/testkit/openai-server/server.ts';
import type { ScenarioInput } from '../../src/testkit/openai-server/scenario.ts';

export const API_KEY = 'sk-test-key-0123456789';

/** The default `llm` configuration with some keys replaced. */
export function llmConfig(patch: Partial<Config['llm']> = {}): Config['llm'] {
  const result = resolveConfig([]);
  if (!isResolved(result)) throw new Error(result.problems.join('; '));
  return { ...result.config.llm, ...patch };
}

export interface Harness {
  server: ScriptedOpenAiServer;
  llm: OpenAiLlm;
  clock: FakeClock;
  logger: Logger;
  /** Log lines (JSON). */
  lines: string[];
  logged(message: string): Record<string, unknown>[];
}

/**
 * A scripted server and an adapter pointed at it, with a fake clock and an
 * in-memory JSON logger. The server is closed after `run`.
 */
export async function withLlm(
  scenario: ScenarioInput | string,
  run: (h: Harness) => Promise<void>,
  options: {
    llm?: Partial<Config['llm']>;
    timeoutMs?: number;
    env?: Record<string, string>;
    promptsDir?: string;
  } = {},
): Promise<void> {
  const server = await startScriptedOpenAiServer({ scenario, apiKey: API_KEY });
  try {
    const clock = new FakeClock();
    const redactor = new Redactor();
    redactor.addFromEnv({ OPENAI_API_KEY: API_KEY });
    const { logger, lines } = createMemoryLogger({ redactor, format: 'json', level: 'debug' });
    const llm = new OpenAiLlm({
      llm: llmConfig({ base_url: server.url, model: 'model-a', ...options.llm }),
      env: { OPENAI_API_KEY: API_KEY, ...options.env },
      logger,
      clock,
      timeoutMs: options.timeoutMs ?? 2000,
      ...(options.promptsDir ? { promptsDir: options.promptsDir } : {}),
    });
    const logged = (message: string) =>
      lines
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((entry) => entry['message'] === message);
    await run({ server, llm, clock, logger, lines, logged });
  } finally {
    await server.close();
  }
}
