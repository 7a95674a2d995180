import type { CommanderError } from 'commander';
import { Command, Option } from 'commander';
import { UsageError } from '../errors/errors.ts';
import { VERSION } from '../version.ts';
import { CI_STEPS, type CiStep } from '../ci/context.ts';
import { ciCommand } from './commands/ci.ts';
import { configCheck } from './commands/config-check.ts';
import type { RunOptions } from './commands/run.ts';
import type { CliIo } from './io.ts';

const collect = (value: string, previous: string[] = []) => [...previous, value];

function setOption(): Option {
  return new Option(
    '--set <key=value>',
    'override an option (repeatable), e.g. --set planning.strategy=simple',
  ).argParser(collect);
}

/**
 * Builds the commander program; each action stores its exit code in `result`.
 * Commands with heavy dependencies (the run, the bridge, detection) are imported when
 * they run, so `mr-agent ci` on a comment that is not a command starts fast.
 */
export function buildProgram(io: CliIo, result: { code: number }): Command {
  const program = new Command('mr-agent')
    .description('A coding agent that lives in GitLab CI.')
    .version(VERSION, '-v, --version')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    })
    .exitOverride();

  program
    .command('run')
    .description(
      'run the agent on a task in a local checkout (Task YAML on stdin, --task-file or --task)',
    )
    .option('--task <text>', 'the task as plain text')
    .option('--task-file <file>', 'a Task YAML file (seed 002 format)')
    .option('--repo <dir>', 'repository to work in (default: the Task YAML task.repo, or .)')
    .addOption(setOption())
    .option('--json', 'print the result as JSON')
    .action(async (options: RunOptions) => {
      const { runLocal } = await import('./commands/run-local.ts');
      const { defaultRunFactories } = await import('./commands/run-factories.ts');
      result.code = await runLocal(io, options, defaultRunFactories());
    });

  program
    .command('ci')
    .description('run inside a GitLab CI job (reads CI_* and MR_AGENT_* variables)')
    .addOption(
      new Option(
        '--step <step>',
        "all: the whole run in this job; plan: plan and write the child pipeline; run: carry out the plan job's hand-off",
      )
        .choices(CI_STEPS)
        .default('all'),
    )
    .action(async (options: { step: CiStep }) => {
      result.code = await ciCommand(io, options);
    });

  program
    .command('serve')
    .description('start the webhook bridge that turns comments into pipelines')
    .option('--port <n>', 'port to listen on (default 8080, or MR_AGENT_PORT)')
    .addOption(setOption())
    .action(async (options: { port?: string; set?: string[] }) => {
      const { serve } = await import('./commands/serve.ts');
      result.code = await serve(io, options);
    });

  program
    .command('demo')
    .description('run the whole pipeline offline on a bundled sample repository')
    .option('--keep', 'keep the temporary directory')
    .addOption(setOption())
    .action(async (options: { keep?: boolean; set?: string[] }) => {
      const { demoCommand } = await import('./commands/demo.ts');
      result.code = await demoCommand(io, options);
    });

  program
    .command('detect')
    .description("detect a repository's execution environment")
    .argument('[dir]', 'repository folder', '.')
    .option('--json', 'print JSON')
    .option(
      '--walk',
      'walk the folder even in a git checkout (sees untracked files, applies .gitignore)',
    )
    .action(async (dir: string, options: { json?: boolean; walk?: boolean }) => {
      const { detectCommand } = await import('./commands/detect.ts');
      result.code = await detectCommand(io, dir, options);
    });

  const config = program.command('config').description('configuration commands');
  config
    .command('check')
    .description('validate and print the resolved configuration with the source of each value')
    .option('--repo <dir>', 'repository holding .mr-agent.yml', '.')
    .addOption(setOption())
    .option('--json', 'print JSON')
    .action(async (options: { repo?: string; set?: string[]; json?: boolean }) => {
      result.code = await configCheck(io, options);
    });

  return program;
}

/** Commander's own usage errors become UsageError (exit 2); help/version exit 0. */
export function fromCommanderError(error: CommanderError): { code: number; error?: UsageError } {
  if (['commander.helpDisplayed', 'commander.version', 'commander.help'].includes(error.code))
    return { code: 0 };
  if (error.code === 'commander.executeSubCommandAsync') return { code: 0 };
  return { code: 2, error: new UsageError(error.message.replace(/^error: /, '')) };
}
