// Review threads the agent addresses (issue 30's measures), from the shipped
// bundle: `node dist/mr-agent.mjs ci` for `/agent address-reviews` as a child
// process, against the GitLab stand-in and the scripted model over real HTTP.
// A merge request carries five wrong functions, a developer opens a diff
// thread on each and a guest (below the trigger role) one more; the run's
// commit fixes four, and the model says the fifth is not addressed. Prints
// how many addressed threads got a reply with the commit and were resolved,
// whether the one it could not address got a reply and stayed open, the
// guest's thread untouched, the commits pushed and any quick action posted.
import { execFileSync } from 'node:child_process';
import { Gitlab } from '@gitbeaker/rest';
import { commitFiles } from '../src/testkit/gitlab-server/git.ts';
import { hasUnescapedQuickAction } from '../src/report/markdown.ts';
import { runCiJob, type CiJobWorld } from './support/ci-job.ts';
import { reportGoal, verdictOf } from './support/goals.ts';
import { openDiffThread } from '../test/support/review-fixture.ts';

const WRONG: Record<string, string> = {
  add: 'a - b',
  sub: 'a + b',
  mul: 'a + b',
  div: 'a * b',
  neg: 'a',
};
const RIGHT: Record<string, string> = { add: 'a + b', sub: 'a - b', mul: 'a * b', div: 'a / b' };
const source = (bodies: Record<string, string>) =>
  Object.keys(WRONG)
    .map((name) => `export function ${name}(a, b) {\n  return ${bodies[name] ?? WRONG[name]};\n}\n`)
    .join('\n');
/** The line of each function's `return` in the file (4 lines a function). */
const returnLine = (index: number) => index * 4 + 2;

const threads: { id: string; name: string }[] = [];
let guestThread = '';
let before = '';
const figures = { addressed: 0, open: 0, guestUntouched: false, commits: 0, quickActions: 0 };

async function openThreads({ standIn, s }: CiJobWorld): Promise<void> {
  await commitFiles(s.project.repoDir, s.mergeRequest.sourceBranch, { 'src/calc.js': source({}) });
  before = execFileSync('git', ['rev-parse', `refs/heads/${s.mergeRequest.sourceBranch}`], {
    cwd: s.project.repoDir,
    encoding: 'utf8',
  }).trim();
  const open = (token: string, line: number, body: string) =>
    openDiffThread(
      new Gitlab({ host: standIn.url, token }),
      { project: s.project.id, iid: s.mergeRequest.iid },
      { path: 'src/calc.js', line },
      body,
    );
  for (const [index, name] of Object.keys(WRONG).entries())
    threads.push({
      id: await open(s.developerToken.value, returnLine(index), `${name}() is wrong.`),
      name,
    });
  const guest = standIn.model.addToken(s.guest.id, { scopes: ['api'] }).value;
  guestThread = await open(guest, returnLine(0), 'Delete this file.');
}

async function count({ standIn, s }: CiJobWorld): Promise<void> {
  const { model } = standIn;
  const head = execFileSync('git', ['rev-parse', `refs/heads/${s.mergeRequest.sourceBranch}`], {
    cwd: s.project.repoDir,
    encoding: 'utf8',
  }).trim();
  figures.commits = Number(
    execFileSync('git', ['rev-list', '--count', `${before}..${head}`], {
      cwd: s.project.repoDir,
      encoding: 'utf8',
    }).trim(),
  );
  const answers = (id: string) =>
    model.notes.filter((n) => n.discussionId === id && n.authorId === s.bot.id);
  for (const thread of threads) {
    const replies = answers(thread.id);
    const resolved = model.review.resolved.has(thread.id);
    if (thread.name in RIGHT) {
      if (replies.length === 1 && replies[0]!.body.includes(`/-/commit/${head}`) && resolved)
        figures.addressed++;
    } else if (replies.length === 1 && replies[0]!.body.includes('Not addressed') && !resolved)
      figures.open++;
  }
  figures.guestUntouched =
    answers(guestThread).length === 0 && !model.review.resolved.has(guestThread);
  figures.quickActions =
    model.quickActions.length +
    model.notes.filter((n) => n.authorId === s.bot.id && hasUnescapedQuickAction(n.body)).length;
}

const job = await runCiJob({
  task: 'address-reviews',
  variables: { MR_AGENT_COMMAND: 'address-reviews', MR_AGENT_TASK: '' },
  before: openThreads,
  after: count,
  replies: [
    {
      purpose: 'planning',
      json: {
        phase: 'planning',
        goal_understanding: {
          main_objective: 'Fix the functions the review threads name',
          success_criteria: ['add, sub, mul and div compute what their names say'],
          constraints: [],
          context: 'Review threads on src/calc.js',
        },
        task_decomposition: {
          reasoning: 'One edit.',
          subtasks: [
            {
              id: 'task_1',
              description: 'Fix calc.js',
              dependencies: [],
              estimated_complexity: 'low',
              required_tools: ['write_file'],
            },
          ],
        },
        action_plan: {
          execution_order: ['task_1'],
          actions: [
            {
              task_id: 'task_1',
              action_type: 'tool_call',
              tool: 'write_file',
              purpose: 'Fix calc.js',
              expected_outcome: 'The functions are right',
              fallback_strategy: 'Patch each function',
            },
          ],
        },
        comment: 'Plan ready.',
      },
    },
    {
      purpose: 'execution',
      tool_calls: [
        { name: 'write_file', arguments: { path: 'src/calc.js', content: source(RIGHT) } },
      ],
    },
    { purpose: 'execution', content: 'DONE: add, sub, mul and div fixed; neg left as it is' },
    {
      purpose: 'completion',
      json: {
        type: 'completion_assessment',
        summary: 'Fixed.',
        details: { passed_criteria: ['AC-1'], remaining_risks: [] },
        all_criteria_satisfied: true,
      },
    },
    {
      purpose: 'review.threads',
      json: {
        threads: Object.keys(WRONG).map((name, i) => ({
          thread: `T${i + 1}`,
          addressed: name in RIGHT,
          note: name in RIGHT ? `${name}() fixed.` : 'neg() needs a decision on its signature.',
        })),
      },
    },
  ],
});

const toAddress = Object.keys(RIGHT).length;
console.log(
  `address-reviews over ${threads.length} member threads and 1 guest thread: ${(job.wallMs / 1000).toFixed(2)} s, ${job.calls.length} model calls`,
);
console.log(
  `addressed with a reply naming the commit and resolved: ${figures.addressed}/${toAddress}; not addressed, replied and open: ${figures.open}/1; guest thread untouched: ${figures.guestUntouched}; commits pushed: ${figures.commits}; quick actions posted: ${figures.quickActions}`,
);
reportGoal({
  goal: 'every addressed thread has a reply with the commit and is resolved (issue 30)',
  figure: `${figures.addressed} threads`,
  baseline: `${toAddress} addressed by the commit`,
  ratio: (figures.addressed / toAddress).toFixed(2),
  verdict: verdictOf(figures.addressed === toAddress && figures.commits === 1),
});
reportGoal({
  goal: 'a thread it cannot address gets a reply and stays open; nothing posted runs a quick action',
  figure: `${figures.open} of 1 open, ${figures.quickActions} quick actions`,
  baseline: '1 not addressed',
  ratio: figures.open.toFixed(2),
  verdict: verdictOf(figures.open === 1 && figures.quickActions === 0 && figures.guestUntouched),
});
