import { loadConfig } from '../../src/config/load.ts';
import { shellCheckout } from '../../src/shell/checkout-port.ts';
import { FakeClock } from '../../src/core/clock.ts';
import type { RunDeps } from '../../src/core/run-context.ts';
import { promptLibrary } from '../../src/llm/prompt-files.ts';
import { createMemoryLogger } from '../../src/log/logger.ts';
import { Redactor } from '../../src/log/redact.ts';
import { ExecaShell } from '../../src/shell/execa-shell.ts';
import type { LlmPort } from '../../src/core/llm-port.ts';
import { MemoryHistory, MemoryReporter } from './memory-ports.ts';

export interface TestDeps extends RunDeps {
  reporter: MemoryReporter;
  history: MemoryHistory;
  logLines: string[];
}

/**
 * Run dependencies for tests: real shell, real prompts, in-memory reporter and
 * history. Reviews are off unless the test injects a review hook or asks for
 * the real review phase (`realReview`; its scenarios are in test/phases/review/).
 */
export async function testDeps(
  llm: LlmPort,
  options: {
    sets?: string[];
    env?: Record<string, string>;
    overrides?: Partial<RunDeps>;
    realReview?: boolean;
  } = {},
): Promise<TestDeps> {
  const reviewOff = !options.realReview && !options.overrides?.hooks?.review;
  const { config } = await loadConfig({
    env: options.env ?? {},
    file: null,
    sets: [...(reviewOff ? ['review.enabled=false'] : []), ...(options.sets ?? [])],
  });
  const redactor = new Redactor();
  const { logger, lines } = createMemoryLogger({ level: 'debug', redactor });
  return {
    config,
    llm,
    shell: new ExecaShell(),
    clock: new FakeClock(),
    logger,
    redactor,
    hostEnv: { PATH: process.env.PATH, HOME: process.env.HOME, ...(options.env ?? {}) },
    prompts: promptLibrary(config.prompts.directory),
    checkout: shellCheckout,
    reporter: new MemoryReporter(),
    history: new MemoryHistory(),
    ...options.overrides,
    logLines: lines,
  } as TestDeps;
}
