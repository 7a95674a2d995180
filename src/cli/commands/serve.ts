import { loadConfig, type LoadConfigInput } from '../../config/load.ts';
import type { Config } from '../../config/options.ts';
import {
  createLogger,
  newTraceId,
  resolveLogFormat,
  textSink,
  type Logger,
} from '../../log/logger.ts';
import { Redactor } from '../../log/redact.ts';
import { assertBridgeConfig, startBridge } from '../../trigger/bridge.ts';
import type { BridgeGitLab } from '../../commands/bridge-port.ts';
import { createBridgeGitLab } from '../../commands/gitlab-bridge.ts';
import type { CliIo } from '../io.ts';

export interface ServeOptions {
  port?: string;
  set?: string[];
}

/** Lets tests swap the GitLab client; the CLI uses the gitbeaker-backed one. */
export type BridgeGitLabFactory = (config: Config, logger: Logger) => BridgeGitLab;

function serveLogger(io: CliIo, config: Config, redactor: Redactor): Logger {
  return createLogger({
    level: config.log.level,
    format: resolveLogFormat(config.log.format, io.env),
    traceId: newTraceId(),
    redactor,
    stream: textSink(io.stderr),
  });
}

function untilSignal(io: CliIo): Promise<string> {
  return new Promise((resolve) => {
    const remove = io.onSignal?.((signal) => {
      remove?.();
      resolve(signal);
    });
  });
}

/**
 * `mr-agent serve [--port N]`: the webhook bridge (docs/triggers.md). Runs until SIGTERM or
 * SIGINT, then stops accepting, finishes queued commands and exits 0.
 */
export async function serve(
  io: CliIo,
  options: ServeOptions,
  factory: BridgeGitLabFactory = createBridgeGitLab,
): Promise<number> {
  const flags: LoadConfigInput['flags'] = options.port
    ? { 'serve.port': { value: options.port, from: '--port' } }
    : {};
  const { config } = await loadConfig({ env: io.env, file: null, sets: options.set ?? [], flags });
  assertBridgeConfig(config);
  const redactor = new Redactor();
  redactor.addFromEnv(io.env, config.secrets.variables);
  for (const secret of [
    config.gitlab.token,
    config.serve.webhook_secret,
    config.serve.trigger_token,
  ])
    redactor.add(secret);
  const logger = serveLogger(io, config, redactor);
  const bridge = await startBridge({ config, gitlab: factory(config, logger), logger, redactor });
  const signal = await untilSignal(io);
  logger.info('signal received', { signal });
  await bridge.close();
  return 0;
}
