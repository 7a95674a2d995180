// A long run as a reviewer sees it on the merge request (issue 32): one step
// that fails 10 times, each failure retried on the model's replan decision,
// then done. `mr-agent ci` from the shipped bundle (dist/mr-agent.mjs, a child
// process) against the GitLab stand-in and the scripted model over real HTTP.
//
// Goals: the run posts ≤ 2 notes (the progress note and the closing reply),
// and its progress note, as GitLab shows it with the details folded, is
// ≤ 700 px tall. The height comes from the render-notes tool
// (../shared/tools/render-notes, headless Chromium; RENDER_NOTES_DIR names an
// installed copy, bench/support/render-notes.ts); without it the height is
// "skipped: render-notes not found". The repository has no faithful pixel
// measure of its own: beside the height it prints the lines the folded note
// shows, as GitLab's Markdown rules lay them out (markdown-it), for information.
// RENDER_NOTES_SHOTS=<folder> keeps the screenshots.
import { SCENARIO_FILES } from '../src/testkit/gitlab-server/index.ts';
import { renderGitLab, visibleText } from '../test/support/gitlab-markdown.ts';
import { action, assessment, planWith } from '../test/support/plans.ts';
import { runCiJob } from './support/ci-job.ts';
import { reportGoal, verdictOf } from './support/goals.ts';
import { findRenderNotes, renderedHeights } from './support/render-notes.ts';

const RETRIES = 10;
const MAX_NOTES = 2;
const MAX_FOLDED_PX = 700;

const decide = (point: string, fields: Record<string, unknown> = {}) => ({
  purpose: `replan.${point}`,
  json: {
    replan_decision: { replan_needed: false, confidence: 0.9, reasoning: 'Fine.', ...fields },
  },
});
const retry = decide('execution', {
  replan_needed: true,
  replan_type: 'retry',
  replan_level: 1,
  reasoning: 'The registry timed out; a transient failure, so the same step runs again.',
});

const replies = [
  {
    purpose: 'planning',
    json: planWith(
      [action('task_1', 'Add retry with exponential backoff to the HTTP client')],
      ['GET requests are retried on 429 and 5xx'],
    ),
  },
  decide('goal_understanding'),
  decide('task_decomposition'),
  decide('action_sequence'),
  ...Array.from({ length: RETRIES }, (_, i) => [
    { purpose: 'execution', content: `FAILED: the package registry timed out (try ${i + 1})` },
    retry,
  ]).flat(),
  {
    purpose: 'execution',
    tool_calls: [
      {
        name: 'write_file',
        arguments: { path: 'src/retry.js', content: 'export const retries = 3;\n' },
      },
    ],
  },
  { purpose: 'execution', content: 'DONE: added the retry helper' },
  decide('execution'),
  { purpose: 'completion', json: assessment(true) },
  decide('final_evaluation'),
];

// the repository lets one step be retried 10 times and a run replan as often
const config = [
  'planning:',
  '  replanning:',
  '    execution:',
  `      max_action_retries: ${RETRIES}`,
  '    global:',
  `      max_total_replans: ${RETRIES * 2}`,
  '      infinite_loop_detection: false',
  '',
].join('\n');

const job = await runCiJob({
  replies,
  task: 'add retry with exponential backoff to the HTTP client',
  files: { ...SCENARIO_FILES, '.mr-agent.yml': config },
  variables: { REPLANNING_ENABLED: 'true' },
});
const notes = job.botNotes;
const progress = notes.find((body) => body.includes('mr-agent:progress'));
if (!progress) throw new Error('the long run left no progress note');

console.log(`notes of a long run (${RETRIES} retries of one step, replans on; dist, over HTTP)`);
console.log(`  notes posted                 ${notes.length} (goal ≤ ${MAX_NOTES})`);
reportGoal({
  goal: `a long run posts ≤ ${MAX_NOTES} notes`,
  figure: `${notes.length} notes`,
  baseline: '',
  ratio: `${notes.length}/${MAX_NOTES}`,
  verdict: verdictOf(notes.length <= MAX_NOTES),
});

const folded = visibleText(renderGitLab(progress));
console.log(
  `  progress note, folded        ${folded.length} lines shown (markdown-it, for information)`,
);

const tool = findRenderNotes();
if (!tool) {
  console.log('  progress note folded height  skipped: render-notes not found');
  reportGoal({
    goal: `a long run's progress note ≤ ${MAX_FOLDED_PX} px folded`,
    figure: 'skipped: render-notes not found',
    baseline: '',
    ratio: '',
    verdict: 'info',
  });
} else {
  const shots = process.env['RENDER_NOTES_SHOTS'];
  const height = renderedHeights(tool, { 'long-run-progress': progress }, shots)[
    'long-run-progress'
  ];
  if (height === undefined) throw new Error('render-notes measured no height');
  console.log(
    `  progress note folded height  ${height} px (goal ≤ ${MAX_FOLDED_PX}; render-notes)`,
  );
  reportGoal({
    goal: `a long run's progress note ≤ ${MAX_FOLDED_PX} px folded`,
    figure: `${height} px`,
    baseline: '',
    ratio: `${(height / MAX_FOLDED_PX).toFixed(2)}× of ${MAX_FOLDED_PX} px`,
    verdict: verdictOf(height <= MAX_FOLDED_PX),
  });
}
