import { runDemo } from '../../demo/run-demo.ts';
import { useColor, type CliIo } from '../io.ts';

export interface DemoCommandOptions {
  keep?: boolean;
  set?: string[];
  /** `fix` (default) or `review` (docs/demo.md). */
  scene?: 'fix' | 'review';
}

/** `mr-agent demo [--keep]` (docs/demo.md): the whole pipeline offline; exit code of the run. */
export async function demoCommand(io: CliIo, options: DemoCommandOptions): Promise<number> {
  const controller = new AbortController();
  const remove = io.onSignal?.((signal) => controller.abort(new Error(`received ${signal}`)));
  try {
    return await run(io, options, controller.signal);
  } finally {
    remove?.();
  }
}

async function run(io: CliIo, options: DemoCommandOptions, signal: AbortSignal): Promise<number> {
  const out = io.stdout as CliIo['stdout'] & { columns?: number };
  const live = Boolean(out.isTTY) && io.env.CI !== 'true' && io.env.TERM !== 'dumb';
  const result = await runDemo({
    signal,
    out,
    live,
    color: useColor(io) && Boolean(out.isTTY),
    hostEnv: io.env,
    keep: options.keep === true,
    sets: options.set ?? [],
    scene: options.scene ?? 'fix',
  });
  return result.exitCode;
}
