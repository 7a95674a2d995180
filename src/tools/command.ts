import { stat } from 'node:fs/promises';
import * as z from 'zod';
import { commandsRefused, isolatedRequest } from '../core/isolation.ts';
import { inEnvironment } from '../shell/in-environment.ts';
import { OUTPUT_RESERVE_CHARS, outputForModel } from './command-output.ts';
import { defineTool, ToolError } from './registry.ts';
import { resolveInRepo } from './sandbox.ts';

/** After a timeout: SIGTERM, then SIGKILL after this long. */
export const KILL_AFTER_MS = 5000;
/**
 * Output kept in memory per stream for commands whose output is read by code
 * (verification's test run): a head and a tail, the middle counted; the
 * command is never stopped for printing much.
 */
export const COMMAND_OUTPUT_BYTES = 16 * 1024 * 1024;
const FAILED = 'the command failed — ';

function statusLine(result: {
  exitCode: number | undefined;
  timedOut: boolean;
  cancelled: boolean;
  signal: string | undefined;
  durationMs: number;
  spawnError: string | undefined;
}): string {
  if (result.spawnError) return `could not start: ${result.spawnError}`;
  const parts = [`exit code: ${result.exitCode ?? 'none'}`];
  if (result.timedOut) parts.push('timed out and was stopped');
  if (result.cancelled) parts.push('cancelled');
  if (result.signal && !result.timedOut) parts.push(`ended by ${result.signal}`);
  parts.push(`${result.durationMs} ms`);
  return parts.join(', ');
}

export const runCommand = defineTool({
  name: 'run_command',
  description:
    'Run a shell command in the repository (sh -c) and return its exit code and output. The environment has no tokens or keys. Long-running commands are stopped at the timeout.',
  args: z.strictObject({
    command: z.string().min(1),
    cwd: z.string().default('.').describe('Working folder, relative to the repository root.'),
    timeout_sec: z.number().int().min(1).optional().describe('Lower than the configured limit.'),
  }),
  capsOwnOutput: true,
  async run(args, ctx) {
    // a command as the agent's own user could read the job's secrets (docs/security.md)
    const refused = commandsRefused(ctx.isolation);
    if (refused) throw new ToolError(`${refused}. Work with the file tools instead.`);
    const cwd = await resolveInRepo(ctx.root, args.cwd);
    const isDir = await stat(cwd).then(
      (s) => s.isDirectory(),
      () => false,
    );
    if (!isDir) throw new ToolError(`${args.cwd}: is not a folder of the repository`);
    const timeoutMs = Math.min(
      ctx.commandTimeoutMs,
      args.timeout_sec ? args.timeout_sec * 1000 : Infinity,
    );
    // inside the selected environment (e.g. `conda run -n X`), once it is set up
    const inside = inEnvironment(args.command, ctx.hostEnv, ctx.environment);
    // the model's budget is the only cap: the shell keeps about that much (head and tail)
    const budget = Math.max(100, ctx.maxOutputChars - OUTPUT_RESERVE_CHARS);
    const result = await ctx.shell.run(
      await isolatedRequest(ctx.isolation, {
        command: inside.command,
        cwd,
        env: inside.env,
        timeoutMs,
        killAfterMs: KILL_AFTER_MS,
        maxOutputBytes: budget,
        ...(ctx.signal ? { signal: ctx.signal } : {}),
      }),
    );
    ctx.logger.info('command finished', {
      command: args.command,
      exitCode: result.exitCode,
      outputLength: result.output.length,
      cutBytes: result.outputCut?.bytes ?? 0,
      durationMs: result.durationMs,
      timedOut: result.timedOut,
    });
    const status = statusLine(result);
    const room = ctx.maxOutputChars - status.length - 1 - (result.failed ? FAILED.length + 7 : 0);
    const output = outputForModel(result, Math.max(0, room), ctx.redactor);
    const text = `${status}\n${output === '' ? '(no output)' : output}`;
    if (result.failed) throw new ToolError(`${FAILED}${text}`);
    return text;
  },
});
