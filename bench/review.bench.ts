// `/agent review` on a large merge request, from the shipped command
// (`mr-agent ci`, dist/mr-agent.mjs, a child process) against the GitLab
// stand-in and the scripted model over HTTP. The fixture is a synthetic
// change of about 2,000 diff lines across 30 files (test/support/review-fixture.ts);
// the scripted reviewer answers each call with a corpus of findings of known
// kinds (test/support/review-corpus.ts): suggestions on changed lines, and
// findings off the diff, past a file's end, across two hunks or on a deleted
// file. Figures:
// - the model calls and tokens the review takes, against the review of the
//   seeded one-file merge request (the baseline);
// - the same at 20,000 diff characters a call, and under a token budget of
//   half what that took: what is spent and which files are left out;
// - the share of the suggestions anchored on changed lines that apply cleanly
//   through GitLab's apply-suggestion API (goal ≥ 95 %);
// - duplicate threads over 3 re-reviews, one after a push that moves lines (goal 0);
// - GitLab's refusals of a position, against the refusals the review reported (goal: all).
import { Gitlab } from '@gitbeaker/rest';
import { readBlob } from '../src/testkit/gitlab-server/git.ts';
import { largeChange } from '../test/support/review-fixture.ts';
import {
  ANCHORABLE,
  corpusReplies,
  expectedAfterApply,
  reviewCorpus,
} from '../test/support/review-corpus.ts';
import { reportGoal, verdictOf } from './support/goals.ts';
import { ReviewWorld } from './support/review-world.ts';

const DISCUSSIONS = '/projects/:id/merge_requests/:iid/discussions';
const pct = (part: number, whole: number) =>
  whole === 0 ? 'n/a' : `${((100 * part) / whole).toFixed(1)} %`;

function refusalsIn(world: ReviewWorld): { refused: number; reported: number } {
  const refused = world.standIn.requests.entries.filter(
    (e) => e.method === 'POST' && e.route === DISCUSSIONS && e.status === 400,
  ).length;
  const reported = world.standIn.model.notes
    .filter((n) => n.body.includes('mr-agent:review-unplaced'))
    .flatMap((n) => n.body.split('\n'))
    .filter((l) => l.includes('GitLab refused the position')).length;
  return { refused, reported };
}

const threadIds = (world: ReviewWorld) =>
  world.standIn.model.notes
    .filter((n) => n.body.includes('mr-agent:finding id='))
    .map((n) => /id=([a-f0-9]+)/.exec(n.body)![1]!);

// the baseline: the seeded merge request, one file, one finding
const small = await ReviewWorld.start();
let baseline;
try {
  baseline = await small.review([
    {
      purpose: 'review.merge_request',
      content: JSON.stringify({
        result: 'PASS_WITH_SUGGESTIONS',
        feedback: 'fine',
        findings: [{ file: 'src/greet.js', line: 2, severity: 'minor', message: 'Say hello.' }],
      }),
    },
  ]);
} finally {
  await small.close();
}
const baseTokens = baseline.result.tokens.total;
console.log(`review: the one-file merge request takes 1 call, ${baseTokens} tokens`);

/** Runs `body` in a world of its own, closed afterwards; its refusals counted. */
async function inWorld(
  base: Record<string, string>,
  head: Record<string, string | null>,
  body: (world: ReviewWorld) => Promise<void>,
): Promise<{ refused: number; reported: number }> {
  const world = await ReviewWorld.start(base, head);
  try {
    await body(world);
    return refusalsIn(world);
  } finally {
    await world.close();
  }
}

const change = largeChange();
const refusals = [];
refusals.push(
  await inWorld(change.base, change.head, async (large) => {
    const changes = await large.changes();
    const lines = changes.reduce((n, f) => n + f.additions + f.deletions, 0);
    const corpus = reviewCorpus(change);
    const replies = corpusReplies(changes, change, corpus);
    const full = await large.review(replies);
    const reviewed = [...change.reviewable.keys()].filter((file) =>
      full.calls.some((c) => c.text.includes(`diff of ${file} (`)),
    ).length;
    const tokens = full.result.tokens.total;
    console.log(
      `review: ${lines} diff lines in ${changes.length} files: ${full.calls.length} calls, ${tokens} tokens ` +
        `(prompts ${full.calls.map((c) => c.promptTokens).join(' + ')}), ` +
        `${reviewed} files reviewed, ${Object.keys(change.skipped).length} left out with the reason`,
    );
    reportGoal({
      goal: `review of ${lines} diff lines / ${changes.length} files: calls and tokens`,
      figure: `${full.calls.length} calls, ${tokens} tokens, ${reviewed}/${change.reviewable.size} files reviewed`,
      baseline: `1-file review: 1 call, ${baseTokens} tokens`,
      ratio: `${(tokens / baseTokens).toFixed(1)}× tokens`,
      verdict: verdictOf(reviewed === change.reviewable.size && full.unusedReplies === 0),
    });

    // every suggestion GitLab parsed is applied through its API, bottom-up in each file
    const developer = new Gitlab({ host: large.standIn.url, token: large.s.developerToken.value });
    const suggestions = [...large.standIn.model.review.suggestions].sort(
      (a, b) => a.path.localeCompare(b.path) || b.fromLine - a.fromLine,
    );
    let applied = 0;
    for (const s of suggestions) {
      try {
        if ((await developer.Suggestions.edit(s.id)).applied) applied++;
      } catch (error) {
        console.log(
          `  suggestion ${s.id} on ${s.path}:${s.fromLine} not applied: ${String(error)}`,
        );
      }
    }
    const expected = expectedAfterApply(change, corpus);
    let clean = 0;
    for (const [file, text] of expected) {
      const blob = await readBlob(large.s.project.repoDir, large.s.mergeRequest.sourceBranch, file);
      if (blob?.toString() === text) clean++;
    }
    const anchorable = corpus.filter((c) => ANCHORABLE.includes(c.kind)).length;
    // a suggestion counts when it was applied and every file reads as all its suggestions say
    const share = clean === expected.size ? Math.min(applied, anchorable) : 0;
    console.log(
      `review: corpus of ${corpus.length} findings: ${anchorable} suggestions on changed lines, ` +
        `${suggestions.length} posted, ${applied} applied, ${clean}/${expected.size} files as expected`,
    );
    reportGoal({
      goal: 'suggestions anchored on changed lines that apply cleanly ≥ 95 %',
      figure: `${share} of ${anchorable}`,
      baseline: '',
      ratio: pct(share, anchorable),
      verdict: verdictOf(share / anchorable >= 0.95),
    });
  }),
);

// smaller calls (review.diff_chars_per_call: 20000), then a token budget of half what they took
const smallCalls = largeChange();
refusals.push(
  await inWorld(
    { ...smallCalls.base, '.mr-agent.yml': 'review:\n  diff_chars_per_call: 20000\n' },
    smallCalls.head,
    async (budgetWorld) => {
      const replies = corpusReplies(
        await budgetWorld.changes(),
        smallCalls,
        reviewCorpus(smallCalls),
        20_000,
      );
      const unbudgeted = await budgetWorld.review(replies);
      const tokens = unbudgeted.result.tokens.total;
      console.log(
        `review: at 20,000 diff characters a call: ${unbudgeted.calls.length} calls, ${tokens} tokens`,
      );
      reportGoal({
        goal: 'the same review at review.diff_chars_per_call = 20000: calls and tokens',
        figure: `${unbudgeted.calls.length} calls, ${tokens} tokens`,
        baseline: `1-file review: 1 call, ${baseTokens} tokens`,
        ratio: `${(tokens / baseTokens).toFixed(1)}× tokens`,
        verdict: 'info',
      });
      const limit = Math.floor(tokens / 2);
      const budgeted = await budgetWorld.review(replies, { MR_AGENT_BUDGET_TOKENS: String(limit) });
      const spent = budgeted.result.tokens.total;
      const left =
        smallCalls.reviewable.size -
        [...smallCalls.reviewable.keys()].filter((file) =>
          budgeted.calls.some((c) => c.text.includes(`diff of ${file} (`)),
        ).length;
      console.log(
        `review: under budget.max_tokens=${limit}: ${budgeted.calls.length} calls, ${spent} tokens, ` +
          `${left} files left out (the budget ran out), ${budgeted.result.state}`,
      );
      reportGoal({
        goal: 'that review under budget.max_tokens = ½ of its tokens: spends ≤ the budget, ends complete',
        figure: `${spent} tokens in ${budgeted.calls.length} calls, ${left} files left out, ${budgeted.result.state}`,
        baseline: `budget ${limit} tokens`,
        ratio: `${(spent / limit).toFixed(2)}`,
        verdict: verdictOf(spent <= limit && budgeted.result.state === 'complete' && left > 0),
      });
    },
  ),
);

// one review, a push that adds two lines at the top of a module, three re-reviews
const again = largeChange();
const reviews = { threads: 0, duplicates: 0 };
refusals.push(
  await inWorld(again.base, again.head, async (dedupe) => {
    await dedupe.review(corpusReplies(await dedupe.changes(), again, reviewCorpus(again)));
    const moved = 'src/mod_03.js';
    await dedupe.push({
      [moved]: `// reviewed module\n// do not edit by hand\n${again.reviewable.get(moved)!.lines.join('\n')}\n`,
    });
    const shifted = reviewCorpus(again, { [moved]: 2 });
    for (let round = 0; round < 3; round++)
      await dedupe.review(corpusReplies(await dedupe.changes(), again, shifted));
    const ids = threadIds(dedupe);
    reviews.threads = new Set(ids).size;
    reviews.duplicates = ids.length - reviews.threads;
  }),
);
const { threads, duplicates } = reviews;
const refused = refusals.reduce((n, r) => n + r.refused, 0);
const reported = refusals.reduce((n, r) => n + r.reported, 0);
console.log(`review: 4 reviews of one change: ${threads} threads, ${duplicates} duplicates`);
reportGoal({
  goal: 'duplicate threads over 3 re-reviews = 0',
  figure: `${duplicates} duplicates among ${threads + duplicates} threads`,
  baseline: '',
  ratio: String(duplicates),
  verdict: verdictOf(duplicates === 0 && threads > 0),
});
console.log(`review: GitLab refused ${refused} positions, ${reported} reported`);
reportGoal({
  goal: 'every GitLab refusal of a position reported',
  figure: `${reported} reported / ${refused} refused`,
  baseline: '',
  ratio: pct(reported, refused),
  verdict: verdictOf(refused > 0 && reported === refused),
});
