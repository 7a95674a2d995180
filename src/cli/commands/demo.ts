import { runDemo } from '../../demo/run-demo.ts';
import { useColor, type CliIo } from '../io.ts';

export interface DemoCommandOptions {
  keep?: boolean;
  set?: string[];
}

/** `mr-agent demo [--keep]` (A7): the whole pipeline offline; exit code of the run. */
export async function demoCommand(io: CliIo, options: DemoCommandOptions): Promise<number> {
  const out = io.stdout as CliIo['stdout'] & { columns?: number };
  const live = Boolean(out.isTTY) && io.env.CI !== 'true' && io.env.TERM !== 'dumb';
  const result = await runDemo({
    out,
    live,
    color: useColor(io) && Boolean(out.isTTY),
    hostEnv: io.env,
    keep: options.keep === true,
    sets: options.set ?? [],
  });
  return result.exitCode;
}
