import type { EnvironmentRunner } from '../core/environment.ts';
import { shellLine } from './quote.ts';
import { sandboxEnv } from './sandbox-env.ts';

export interface EnvironmentCommand {
  /** The command line for the shell port. */
  command: string;
  /** The complete environment of the command. */
  env: Record<string, string>;
}

/**
 * A command line as it runs inside the selected environment
 * (docs/environment.md): `sandboxEnv(hostEnv)` plus the runner's variables, the runner's folders
 * first on `PATH`, and the runner's words (e.g. `conda run -n X
 * --no-capture-output`) before `sh -c <command>`. Without a runner the
 * command runs as it is, in `sandboxEnv(hostEnv)`.
 */
export function inEnvironment(
  command: string,
  hostEnv: Readonly<Record<string, string | undefined>>,
  runner: EnvironmentRunner | undefined,
): EnvironmentCommand {
  const env = sandboxEnv(hostEnv, runner?.env ?? {});
  if (runner && runner.path.length > 0)
    env.PATH = [...runner.path, ...(env.PATH ? [env.PATH] : [])].join(':');
  if (!runner || runner.wrap.length === 0) return { command, env };
  return { command: `exec ${shellLine([...runner.wrap, 'sh', '-c', command])}`, env };
}
