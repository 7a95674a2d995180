import type { CommanderError } from 'commander';
import { Command, Option } from 'commander';
import { UsageError } from '../errors/errors.ts';
import { VERSION } from '../version.ts';
import type { CiStep } from '../ci/context.ts';
import type { RunOptions } from './commands/run.ts';
import type { CliIo } from './io.ts';
import { STEP_CHOICES } from './ci-argv.ts';

const collect = (value: string, previous: string[] = []) => [...previous, value];

function setOption(): Option {
  return new Option(
    '--set <key=value>',
    'override an option (repeatable), e.g. --set planning.strategy=simple',
  ).argParser(collect);
}

const RUN_HELP = `
The model: any OpenAI-compatible endpoint, from OPENAI_API_KEY (or the variable
named by llm.api_key_variable), MR_AGENT_LLM_BASE_URL (or OPENAI_BASE_URL) and
MR_AGENT_LLM_MODEL. Notes go to the terminal and .mr-agent/; the checkout is
edited in place, nothing is committed or pushed.

Examples:
  mr-agent run --repo ../my-project --task "make the importer skip blank rows"
  mr-agent run --task-file task.yaml
  mr-agent run < task.yaml`;

/**
 * Builds the commander program; each action stores its exit code in `result`.
 * Every command's module is imported when it runs, and the bundle keeps each
 * in its own chunks (scripts/bundle-cli.mjs), so `--version` and `--help`
 * load commander and this file only, and each command what it uses.
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
    .exitOverride()
    .addHelpText(
      'after',
      '\nExit codes: 0 success, 1 the run failed, 2 usage or configuration error.\nStart with `mr-agent demo`; the README and docs/ describe every command.',
    );

  program
    .command('run')
    .description(
      'run the agent on a task in a local checkout (Task YAML on stdin, --task-file or --task)',
    )
    .option('--task <text>', 'the task as plain text')
    .option('--task-file <file>', 'a Task YAML file (see docs/agent-runner.md)')
    .option('--repo <dir>', 'repository to work in (default: the Task YAML task.repo, or .)')
    .addOption(setOption())
    .option('--json', 'print the result as JSON')
    .addHelpText('after', RUN_HELP)
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
        .choices(STEP_CHOICES)
        .default('all'),
    )
    .addHelpText(
      'after',
      '\nThe job of the CI/CD component runs this (docs/ci-component.md); on your machine use `mr-agent run`.',
    )
    .action(async (options: { step: CiStep }) => {
      const { ciCommand } = await import('./commands/ci.ts');
      result.code = await ciCommand(io, options);
    });

  program
    .command('serve')
    .description('start the webhook bridge that turns comments into pipelines')
    .option('--port <n>', 'port to listen on (default 8080, or MR_AGENT_PORT)')
    .addOption(setOption())
    .addHelpText(
      'after',
      '\nNeeds MR_AGENT_GITLAB_URL, MR_AGENT_GITLAB_TOKEN, MR_AGENT_WEBHOOK_SECRET and\nMR_AGENT_TRIGGER_TOKEN in the environment; see docs/triggers.md.',
    )
    .action(async (options: { port?: string; set?: string[] }) => {
      const { serve } = await import('./commands/serve.ts');
      result.code = await serve(io, options);
    });

  program
    .command('demo')
    .description('run the whole pipeline offline on a bundled sample repository')
    .option('--keep', 'keep the temporary directory')
    .addOption(
      new Option(
        '--scene <scene>',
        'fix: `/agent fix the failing test`; review: `/agent review`, then `/agent fix this` in a review thread',
      )
        .choices(['fix', 'review'])
        .default('fix'),
    )
    .addOption(setOption())
    .action(async (options: { keep?: boolean; set?: string[]; scene?: 'fix' | 'review' }) => {
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

  program
    .command('setup')
    .description(
      'set up a local checkout as the job does (same commands, retries and checks), then run its tests',
    )
    .argument('[dir]', 'repository folder', '.')
    .option('--json', 'print JSON: environment, commands, verification, tests')
    .addOption(setOption())
    .addHelpText(
      'after',
      '\nExit 0 when ready, 1 when setup failed, 2 when there is no project to set up.\nSee docs/environment.md "mr-agent setup".',
    )
    .action(async (dir: string, options: { json?: boolean; set?: string[] }) => {
      const { setupCommand } = await import('./commands/setup.ts');
      result.code = await setupCommand(io, dir, options);
    });

  const config = program.command('config').description('configuration commands');
  config
    .command('check')
    .description('validate and print the resolved configuration with the source of each value')
    .option('--repo <dir>', 'repository holding .mr-agent.yml', '.')
    .addOption(setOption())
    .option('--json', 'print JSON')
    .action(async (options: { repo?: string; set?: string[]; json?: boolean }) => {
      const { configCheck } = await import('./commands/config-check.ts');
      result.code = await configCheck(io, options);
    });

  program
    .command('warm-compile-cache', { hidden: true })
    .description('load every module once so the compile cache holds them (image builds)')
    .action(async () => {
      const { warmCompileCache } = await import('./commands/warm-cache.ts');
      result.code = await warmCompileCache(io);
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
