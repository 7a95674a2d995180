import type { Config } from '../../config/options.ts';
import { systemClock, type Clock } from '../../core/clock.ts';
import type { LlmPort } from '../../core/llm-port.ts';
import type { Shell } from '../../core/shell-port.ts';
import {
  createLogger,
  newTraceId,
  resolveLogFormat,
  textSink,
  type Logger,
} from '../../log/logger.ts';
import type { Redactor } from '../../log/redact.ts';
import { RunLifecycle } from '../../run/lifecycle.ts';
import { ExecaShell } from '../../shell/execa-shell.ts';
import { useColor, type CliIo } from '../io.ts';
import type { EnvironmentStepDeps } from '../../phases/environment/step.ts';
import type { EnvironmentStep } from '../../core/ports.ts';
import { redactorFor } from './run-support.ts';

/** What `mr-agent run` builds from the configuration; replaceable in tests. */
export interface RunFactories {
  createLlm(config: Config, env: CliIo['env'], logger: Logger, clock: Clock): LlmPort;
  /** Default: the environment phase of src/phases/environment/. */
  createEnvironment?(deps: EnvironmentStepDeps): EnvironmentStep | undefined;
  shell?: Shell;
  clock?: Clock;
  /** After a termination signal, the longest wait for the final state (default 8 s). */
  graceMs?: number;
}

/** What one `mr-agent run` uses, in either mode (the run pipeline or AgentRunner). */
export interface LocalRunServices {
  clock: Clock;
  redactor: Redactor;
  traceId: string;
  logger: Logger;
  llm: LlmPort;
  shell: Shell;
  /** Signals and the grace period; its handler is removed by `lifecycle.close`. */
  lifecycle: RunLifecycle;
}

/**
 * The services of a local run, each built once, here: redaction, logging on
 * stderr, the model, the shell and the run's lifecycle. The lifecycle comes
 * last, so that a failure building the others leaves no signal handler behind.
 */
export function localRunServices(
  io: CliIo,
  config: Config,
  factories: RunFactories,
): LocalRunServices {
  const clock = factories.clock ?? systemClock;
  const redactor = redactorFor(io, config);
  const traceId = newTraceId();
  const logger = createLogger({
    level: config.log.level,
    format: resolveLogFormat(config.log.format, io.env),
    traceId,
    redactor,
    stream: textSink(io.stderr),
    color: useColor(io),
  });
  const llm = factories.createLlm(config, io.env, logger, clock);
  const shell = factories.shell ?? new ExecaShell();
  const lifecycle = new RunLifecycle({
    onSignal: io.onSignal,
    logger,
    graceMs: factories.graceMs,
    exit: io.exit,
  });
  return { clock, redactor, traceId, logger, llm, shell, lifecycle };
}
