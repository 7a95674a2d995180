// The run's context budget (SPEC K4) and memory, from the shipped command:
// `mr-agent ci` (dist/mr-agent.mjs, a child process) carrying out scripted
// runs against the GitLab stand-in and the scripted model over HTTP
// (bench/support/ci-job.ts; each action reads and rewrites a 4 kB module;
// reflection every 3 actions, planning and execution reviews).
// - Prompt tokens as the scripted server counts them (messages, tool schemas
//   and the response format, four characters a token) for runs of 10 and 50
//   actions. Goal: the 50-action run costs at most 6× the 10-action run.
// - Peak RSS of the command (through /usr/bin/time) in a run whose command
//   prints 10 MB, next to the same run without it. Goal: < 200 MB.
import { runCiJob, type LlmCall } from './support/ci-job.ts';
import { reportGoal, times, verdictOf } from './support/goals.ts';
import { moduleFiles, scriptedRun } from './support/scripted-run.ts';

const BIG = "head -c 10485760 /dev/zero | tr '\\0' 'x'";

async function run(n: number, bigCommand?: string) {
  return runCiJob({
    replies: scriptedRun(n, bigCommand),
    files: moduleFiles(n),
    task: `update ${n} modules`,
    // as the defaults would run it: reflection every 3 actions, reviews on
    variables: { REFLECTION_INTERVAL: '3', MR_AGENT_REVIEW_ENABLED: 'true' },
  });
}

function summary(calls: readonly LlmCall[]) {
  const exec = calls.filter((c) => c.purpose === 'execution').map((c) => c.promptTokens);
  return {
    calls: calls.length,
    total: calls.reduce((n, c) => n + c.promptTokens, 0),
    execMean: Math.round(exec.reduce((a, b) => a + b, 0) / exec.length),
    execMax: Math.max(...exec),
  };
}

const ten = summary((await run(10)).calls);
const fifty = summary((await run(50)).calls);
console.log('run: prompt tokens as the scripted server counts them (messages + tool schemas)');
for (const [name, s] of [
  ['10 actions', ten],
  ['50 actions', fifty],
] as const) {
  console.log(
    `  ${name}: ${s.calls} calls, total ${s.total}, per execution call mean ${s.execMean} / max ${s.execMax}`,
  );
}
const ratio = fifty.total / ten.total;
reportGoal({
  goal: 'prompt tokens: a 50-action run ≤ 6× a 10-action run (K4)',
  figure: `${fifty.total} tokens (50 actions)`,
  baseline: `${ten.total} tokens (10 actions)`,
  ratio: times(ratio),
  verdict: verdictOf(ratio <= 6),
});

const plain = await run(3);
const big = await run(3, BIG);
const mb = (value: number | undefined) => (value === undefined ? 'n/a' : `${value.toFixed(0)} MB`);
console.log(
  `run: peak RSS of mr-agent ci with 10 MB of command output: ${mb(big.maxRssMb)} (without it: ${mb(plain.maxRssMb)})`,
);
reportGoal({
  goal: 'peak RSS of `mr-agent ci` whose command prints 10 MB < 200 MB',
  figure: mb(big.maxRssMb),
  baseline: `${mb(plain.maxRssMb)} (the same run without the output)`,
  ratio:
    big.maxRssMb && plain.maxRssMb
      ? times(big.maxRssMb / plain.maxRssMb)
      : 'n/a (no /usr/bin/time)',
  verdict: big.maxRssMb === undefined ? 'info' : verdictOf(big.maxRssMb < 200),
});
