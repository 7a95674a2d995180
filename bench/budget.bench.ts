// Budgets: the hard stop before a model call would pass `budget.max_tokens`,
// from the shipped command (`mr-agent ci`, dist/mr-agent.mjs, a child
// process) against the GitLab stand-in and the scripted model over HTTP. A
// 10-action run without a budget is the baseline; then the same run under
// 10 budgets from 15 % to 95 % of its tokens. Goal: every run that stops
// ends as budget_exhausted and spends at most 5 % over its budget.
import { RunResultFile } from '../src/report/result-file.ts';
import { runCiJob } from './support/ci-job.ts';
import { reportGoal, verdictOf } from './support/goals.ts';
import { moduleFiles, scriptedRun } from './support/scripted-run.ts';

const ACTIONS = 10;

async function run(variables: Record<string, string> = {}): Promise<RunResultFile> {
  const job = await runCiJob({
    replies: scriptedRun(ACTIONS),
    files: moduleFiles(ACTIONS),
    task: `update ${ACTIONS} modules`,
    variables,
  });
  return RunResultFile.parse(job.result);
}

const baseline = await run();
const full = baseline.tokens.total;
console.log(`budget: the run without a budget spends ${full} tokens (${baseline.state})`);
let worst = 0;
let stops = 0;
let wrongEnds = 0;
for (let i = 0; i < 10; i++) {
  const limit = Math.floor(full * (0.15 + (0.8 * i) / 9));
  const result = await run({ MR_AGENT_BUDGET_TOKENS: String(limit) });
  const over = (result.tokens.total - limit) / limit;
  worst = Math.max(worst, over);
  const stopped = result.state === 'budget_exhausted';
  if (stopped) stops++;
  // a run under its budget must still complete; one over it must stop as budget_exhausted
  if (!stopped && result.state !== 'complete') wrongEnds++;
  console.log(
    `  budget ${limit}: spent ${result.tokens.total} (${(over * 100).toFixed(1)} % over), ${result.state}`,
  );
}
reportGoal({
  goal: 'budget.max_tokens: overshoot ≤ 5 % on 10 budgets, every stop budget_exhausted',
  figure: `worst ${(worst * 100).toFixed(1)} % over, ${stops} stops, ${wrongEnds} other ends`,
  baseline: `${full} tokens unbudgeted`,
  ratio: `${(worst * 100).toFixed(1)} %`,
  verdict: verdictOf(worst <= 0.05 && stops > 0 && wrongEnds === 0),
});
