import type { CiStep } from '../ci/context.ts';

/**
 * The `--step` choices, as `CI_STEPS` in src/ci/context.ts lists them
 * (test/cli/start-path.test.ts keeps the two equal). Not imported from there:
 * that module holds the zod schemas of the job variables, which `--version`,
 * `--help` and the other commands do not need.
 */
export const STEP_CHOICES = ['all', 'plan', 'run'] as const satisfies readonly CiStep[];

/**
 * The step of `mr-agent ci` as the component's jobs write it — `ci`,
 * `ci --step <step>` or `ci --step=<step>` with a known step — read without
 * the command-line parser, which would load before every job's first note.
 * Anything else (help, an unknown step or option, more arguments) is
 * undefined: commander reads it and says what is wrong.
 */
export function plainCiStep(argv: readonly string[]): CiStep | undefined {
  if (argv[0] !== 'ci') return undefined;
  const rest = argv.slice(1);
  let step: string | undefined;
  if (rest.length === 0) step = 'all';
  else if (rest.length === 2 && rest[0] === '--step') step = rest[1];
  else if (rest.length === 1 && rest[0]!.startsWith('--step='))
    step = rest[0]!.slice('--step='.length);
  return STEP_CHOICES.find((choice) => choice === step);
}
