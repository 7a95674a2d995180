// GitLab API calls of a real 20-action job (issue #22): `mr-agent ci` from the
// shipped bundle against the GitLab stand-in and the scripted model over HTTP,
// the progress note edited as the run goes, with the real clock and the
// default edit interval (gitlab.note_edit_interval_ms). Prints the calls by
// method and route as the stand-in counted them, and the job's wall time.
import { runCiJob } from './support/ci-job.ts';
import { ms, reportGoal } from './support/goals.ts';
import { moduleFiles, scriptedRun } from './support/scripted-run.ts';

const ACTIONS = 20;
const job = await runCiJob({
  replies: scriptedRun(ACTIONS),
  files: moduleFiles(ACTIONS),
  task: `update ${ACTIONS} modules`,
});
const total = Object.values(job.requests).reduce((a, b) => a + b, 0);
console.log(`gitlab-notes: API calls of a real ${ACTIONS}-action job (${ms(job.wallMs)})`);
for (const [route, count] of Object.entries(job.requests)) {
  console.log(`  ${String(count).padStart(4)}  ${route}`);
}
console.log(`  ${String(total).padStart(4)}  total`);
const edits = Object.entries(job.requests)
  .filter(([route]) => route.startsWith('PUT ') && route.includes('/notes/'))
  .reduce((n, [, count]) => n + count, 0);
reportGoal({
  goal: `progress-note edits of a real ${ACTIONS}-action job`,
  figure: `${edits} PUTs, ${total} API calls in all`,
  baseline: `${ACTIONS} actions, ${ms(job.wallMs)}`,
  ratio: (edits / ACTIONS).toFixed(2),
  verdict: 'info',
});
