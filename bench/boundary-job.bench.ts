// The trust boundary's cost through the shipped artefact: `node dist/mr-agent.mjs ci` as a child
// process, over real HTTP against the GitLab stand-in and the scripted model
// (bench/support/ci-job.ts), with commands run as the command user (needs root, as on the bench
// machine). The same job runs on a generated 6-file repository and on a generated 50 000-file one
// (made in a temporary folder: nothing third-party). In the job the model writes a file and runs a
// command that reads it, COMMANDS times; the job ends with the test command and a delivery that
// pushes.
// - The whole job: 50 000 files ≤ 1.5× 6 files (medians of ROUNDS jobs).
// - Per command, from the job's own log: from the model's `run_command` answer to the command's
//   end, less the command's own run time (the hand-over and the command user's spawn), median over
//   every command but the first (the first hands the checkout over whole, once per job: reported
//   apart). Goal: ≤ 50 ms on 50 000 files.
import { runCiJob } from './support/ci-job.ts';
import { median, ms, reportGoal, times, verdictOf } from './support/goals.ts';
import { action, assessment, planWith, reflection } from '../test/support/plans.ts';

const COMMANDS = 10;
const ROUNDS = 3;

function generatedFiles(count: number): Record<string, string> {
  const files: Record<string, string> = { 'README.md': '# generated\n', 'package.json': '{}\n' };
  for (let i = 0; i < count - 2; i += 1)
    files[`pkg${i % 50}/mod${Math.floor(i / 50) % 20}/file${i}.ts`] = `export const v = ${i};\n`;
  return files;
}

function call(name: string, args: Record<string, string>) {
  return { purpose: 'execution', tool_calls: [{ name, arguments: args }] };
}

/** One action: `commands` times, write a file and run a command that reads it. */
function replies(commands: number): unknown[] {
  const steps: unknown[] = [];
  for (let i = 1; i <= commands; i += 1)
    steps.push(
      call('write_file', { path: `bench/step_${i}.txt`, content: `step ${i}\n` }),
      call('run_command', { command: `cat bench/step_${i}.txt` }),
    );
  return [
    {
      purpose: 'planning',
      json: planWith(
        [action('task_1', 'Write the steps and check each')],
        ['Every step is written'],
      ),
    },
    ...steps,
    { purpose: 'execution', content: 'DONE: every step written' },
    { purpose: 'reflection', times: 0, json: reflection('success') },
    { purpose: 'review.*', times: 0, content: '{"result": "PASS", "feedback": ""}' },
    { purpose: 'completion', times: 0, json: assessment(true) },
  ];
}

interface LogLine {
  message?: string;
  command?: string;
  durationMs?: number;
  timestamp?: string;
}

/** The boundary's cost of each command, in order, from the job's JSON log (see above). */
function commandCosts(stderr: string): number[] {
  const lines = stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);
  const costs: number[] = [];
  let answered: number | undefined;
  for (const line of lines) {
    const at = Date.parse(line.timestamp ?? '');
    if (line.message === 'llm request finished') answered = at;
    if (line.message === 'command finished' && line.command?.startsWith('cat bench/step_'))
      if (answered !== undefined) costs.push(at - answered - (line.durationMs ?? 0));
  }
  return costs;
}

async function job(files: Record<string, string>) {
  const walls: number[] = [];
  const firsts: number[] = [];
  const later: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const result = await runCiJob({ replies: replies(COMMANDS), files, task: 'write the steps' });
    if (!result.stderr.includes('change pushed'))
      throw new Error(`the job pushed nothing:\n${result.stderr.slice(-2000)}`);
    const costs = commandCosts(result.stderr);
    if (costs.length < COMMANDS)
      throw new Error(`only ${costs.length} of ${COMMANDS} commands ran as the command user`);
    walls.push(result.wallMs);
    firsts.push(costs[0]!);
    later.push(...costs.slice(1));
  }
  return { wall: median(walls), first: median(firsts), perCommand: median(later) };
}

if (process.getuid?.() !== 0) {
  console.log('boundary job bench: skipped (needs root: commands run as the command user)');
} else {
  const small = await job(generatedFiles(6));
  const large = await job(generatedFiles(50_000));
  console.log(
    `boundary job (mr-agent ci, ${COMMANDS} commands as the command user): ${ms(large.wall)} on 50 000 files, ${ms(small.wall)} on 6 files (${times(large.wall / small.wall)})`,
  );
  console.log(
    `boundary per command (hand-over + spawn as the command user): ${ms(large.perCommand)} on 50 000 files, ${ms(small.perCommand)} on 6 files; the first command (whole-tree hand-over, once a job): ${ms(large.first)} / ${ms(small.first)}`,
  );
  reportGoal({
    goal: `the job through \`mr-agent ci\` (${COMMANDS} commands as the command user), 50 000 files ≤ 1.5× 6 files`,
    figure: ms(large.wall),
    baseline: ms(small.wall),
    ratio: times(large.wall / small.wall),
    verdict: verdictOf(large.wall <= 1.5 * small.wall),
  });
  reportGoal({
    goal: 'the boundary per command through `mr-agent ci` on 50 000 files ≤ 50 ms',
    figure: ms(large.perCommand),
    baseline: `${ms(small.perCommand)} (6 files)`,
    ratio: `${(large.perCommand / 50).toFixed(2)} of 50 ms`,
    verdict: verdictOf(large.perCommand <= 50),
  });
  reportGoal({
    goal: 'the first command’s whole-tree hand-over through `mr-agent ci` (once per job)',
    figure: ms(large.first),
    baseline: `${ms(small.first)} (6 files)`,
    ratio: times(large.first / Math.max(small.first, 1)),
    verdict: 'info',
  });
}
