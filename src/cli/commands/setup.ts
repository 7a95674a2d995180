import { stat } from 'node:fs/promises';
import { promptFiles } from '../../llm/prompt-files.ts';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../config/load.ts';
import type { Config } from '../../config/options.ts';
import { systemClock, type Clock } from '../../core/clock.ts';
import type { LlmPort } from '../../core/llm-port.ts';
import type { Shell } from '../../core/shell-port.ts';
import { UsageError } from '../../errors/errors.ts';
import { escapeInvisible } from '../../errors/visible.ts';
import { createLazyLogger } from '../../log/lazy-logger.ts';
import type { Logger } from '../../log/logger.ts';
import { textSink } from '../../log/text-sink.ts';
import { newTraceId } from '../../log/trace-id.ts';
import type { CommandRecord } from '../../phases/environment/run-command.ts';
import {
  setupCheckout,
  type CheckoutSetupReport,
} from '../../phases/environment/setup-checkout.ts';
import { ExecaShell } from '../../shell/execa-shell.ts';
import { gitTrackedText } from '../../shell/git-tracked.ts';
import { useColor, type CliIo } from '../io.ts';
import { redactorFor } from './run-support.ts';

export interface SetupCommandOptions {
  json?: boolean;
  set?: string[];
}

/** What `mr-agent setup` builds; replaceable in tests. */
export interface SetupFactories {
  createLlm?(config: Config, env: CliIo['env'], logger: Logger, clock: Clock): Promise<LlmPort>;
  shell?: Shell;
}

/** Regeneration needs a model: an endpoint or the API key variable must be set. */
export function endpointConfigured(config: Config, env: CliIo['env']): boolean {
  return config.llm.base_url !== '' || Boolean(env[config.llm.api_key_variable]);
}

/** A model that is never asked: with no endpoint configured, setup makes no regeneration round. */
const NO_MODEL: LlmPort = {
  chat: () => Promise.reject(new Error('no LLM endpoint is configured')),
  json: () => Promise.reject(new Error('no LLM endpoint is configured')),
};

/** `$XDG_CACHE_HOME`, else `~/.cache`: where the tools keep their caches, and mr-agent its shims. */
function toolCacheOf(env: CliIo['env']): string {
  const xdg = env.XDG_CACHE_HOME;
  if (xdg && path.isAbsolute(xdg)) return xdg;
  return path.join(env.HOME || os.homedir(), '.cache');
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function recordLine(record: CommandRecord): string {
  const label = record.stage === 'verification' ? 'check' : 'setup';
  const retried = record.attempts > 1 ? `, ${record.attempts} attempts` : '';
  const lines = [`${label} $ ${record.command}`];
  if (record.stage === 'verification') {
    lines.push(
      record.matched
        ? `  ok: printed ${JSON.stringify(record.expected ?? '')} (${seconds(record.durationMs)})`
        : `  FAILED: exit ${String(record.exitCode)}, printed ${JSON.stringify(record.actual ?? '')}, expected ${JSON.stringify(record.expected ?? '')}`,
    );
  } else if (record.classification) {
    lines.push(
      `  FAILED: exit ${String(record.exitCode)} after ${seconds(record.durationMs)}${retried} (${record.classification.class}: ${record.classification.kind})`,
      ...record.outputTail
        .split('\n')
        .slice(-15)
        .map((l) => `  | ${l}`),
    );
  } else lines.push(`  ok: exit 0 in ${seconds(record.durationMs)}${retried}`);
  return lines.map(escapeInvisible).join('\n');
}

function summaryLine(report: CheckoutSetupReport): string {
  if (report.status === 'ready') {
    const checks = report.verification.expected.length;
    const on = report.tests?.node_version ? ` on Node ${report.tests.node_version}` : '';
    const tests = report.tests
      ? report.tests.tests_run === null
        ? `, the tests ran${on} (exit ${String(report.tests.exit_code)})`
        : `, ${report.tests.tests_run} tests ran${on} (exit ${String(report.tests.exit_code)})`
      : ', no test command found';
    const setup = report.commands.filter((c) => c.stage !== 'verification').length;
    return `mr-agent: ready — ${report.environment}${report.package_manager ? ` (${report.package_manager})` : ''}, ${setup} setup ${setup === 1 ? 'command' : 'commands'}, ${checks} ${checks === 1 ? 'check' : 'checks'} passed${tests}`;
  }
  return `mr-agent: ${report.problem ?? 'setup failed'}`;
}

/**
 * `mr-agent setup [dir] [--json]`: sets up a local checkout as the job does,
 * prints each command and its outcome, then runs the tests. Exit 0 ready,
 * 1 setup failed, 2 nothing to set up or a usage error.
 */
export async function setupCommand(
  io: CliIo,
  dir: string,
  options: SetupCommandOptions,
  factories: SetupFactories = {},
): Promise<number> {
  const repoDir = path.resolve(io.cwd, dir);
  const isFolder = await stat(repoDir).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!isFolder)
    throw new UsageError(`${repoDir} is not a folder`, {
      where: 'mr-agent setup [dir]',
      hint: 'give the folder of a checkout.',
    });
  const resolved = await loadConfig({ env: io.env, repoDir, sets: options.set ?? [] });
  let config = resolved.config;
  const clock = systemClock;
  const redactor = redactorFor(io, config);
  const explicitLevel = resolved.origins['log.level']?.kind !== 'default';
  // winston loads only if a line is written: at the default level, setup writes none
  const logger = createLazyLogger({
    level: explicitLevel ? config.log.level : 'error',
    format: config.log.format === 'json' ? 'json' : 'text',
    traceId: newTraceId(),
    redactor,
    stream: textSink(io.stderr),
    color: useColor(io),
  });
  let llm = NO_MODEL;
  if (endpointConfigured(config, io.env)) {
    llm = factories.createLlm
      ? await factories.createLlm(config, io.env, logger, clock)
      : await import('../../llm/openai-llm.ts').then((m) =>
          m.createOpenAiLlm(config, { env: io.env, logger, clock }),
        );
  } else {
    config = { ...config, environment: { ...config.environment, max_regenerations: 0 } };
  }
  const out = (text: string) => {
    if (!options.json) io.stdout.write(`${text}\n`);
  };
  const report = await setupCheckout({
    repoDir,
    config,
    llm,
    shell: factories.shell ?? new ExecaShell(),
    clock,
    logger,
    redactor,
    hostEnv: io.env,
    prompts: promptFiles(config.prompts.directory),
    tracked: (root) => gitTrackedText(root),
    toolCache: toolCacheOf(io.env),
    onRecord: (record) => out(recordLine(record)),
    onTests: (command) => out(escapeInvisible(`tests $ ${command}`)),
  });
  if (options.json) {
    io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return report.exit_code;
  }
  if (report.tests)
    out(
      `  ${report.exit_code === 0 ? 'ok' : 'FAILED'}: exit ${String(report.tests.exit_code)}, ${report.tests.tests_run === null ? 'no test summary recognised' : `${report.tests.tests_run} tests ran`}${report.tests.node_version ? ` on Node ${report.tests.node_version} (none ran on the Node on PATH)` : ''}`,
    );
  (report.exit_code === 0 ? io.stdout : io.stderr).write(
    `${escapeInvisible(redactor.redact(summaryLine(report)))}\n`,
  );
  return report.exit_code;
}
