import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseMarker } from '../../src/report/marker.ts';
import { RunResultFile } from '../../src/report/result-file.ts';
import { action, assessment, planWith } from '../support/plans.ts';
import { JobWorld, type JobRun } from '../ci/job-world.ts';

const FILE = (n: number) => `export const step${n} = ${n};\n`;
// the world's project checks that src/farewell.js exists
const PATHS = ['src/farewell.js', 'src/step2.js', 'src/step3.js'];
const planning = {
  purpose: 'planning',
  json: planWith(
    [
      action('task_1', 'Add step 1'),
      action('task_2', 'Add step 2'),
      action('task_3', 'Add step 3'),
    ],
    ['the steps exist'],
  ),
};
const work = [1, 2, 3].flatMap((n) => [
  {
    purpose: 'execution',
    tool_calls: [{ name: 'write_file', arguments: { path: PATHS[n - 1], content: FILE(n) } }],
  },
  { purpose: 'execution', content: `DONE: added step ${n}` },
]);
const replies = [planning, ...work, { purpose: 'completion', json: assessment(true) }];

function resultOf(job: JobRun): RunResultFile {
  return RunResultFile.parse(
    JSON.parse(readFileSync(path.join(job.dir, '.mr-agent/result.json'), 'utf8')),
  );
}

/**
 * Budgets over whole `mr-agent ci` jobs: the real OpenAI adapter against the
 * scripted model, the progress note on the GitLab stand-in.
 */
describe('budgets: the hard stop (issue 31)', function () {
  this.timeout(120_000);
  let world: JobWorld;

  beforeEach(async () => {
    world = await JobWorld.start();
  });
  afterEach(async () => {
    await world.close();
  });

  it('budget.max_tokens stops the run before the call that would pass it: ⏸️ Budget reached, result.json budget_exhausted, overshoot ≤ 5 %', async () => {
    const probe = await world.job({
      replies,
      variables: world.bridgeVariables('run', 'add three steps'),
    });
    expect(probe.code, probe.stderr).to.equal(0);
    const full = resultOf(probe).tokens.total;
    const limit = Math.floor(full * 0.6);

    const job = await world.job({
      replies,
      variables: {
        ...world.bridgeVariables('run', 'add three steps'),
        MR_AGENT_BUDGET_TOKENS: String(limit),
      },
    });

    expect(job.code, job.stderr).to.equal(0);
    const result = resultOf(job);
    expect(result.state).to.equal('budget_exhausted');
    expect(result.budget?.exhausted).to.equal(true);
    expect(result.budget?.stopped_by).to.equal('max_tokens');
    expect(result.budget?.limit_tokens).to.equal(limit);
    expect(result.tokens.total).to.be.at.most(limit * 1.05);
    expect(result.tokens.total).to.equal(result.budget?.spent_tokens);
    // every call sent asked for no more than the budget had room for
    for (const r of job.llm.requests) expect(r.body?.max_completion_tokens).to.be.a('number');
    const note = world.progressNotes().at(-1)!;
    expect(parseMarker(note.body)?.state).to.equal('budget_exhausted');
    expect(note.body)
      .to.include('### ⏸️ Budget reached')
      .and.include('`budget.max_tokens`')
      .and.include('`MR_AGENT_BUDGET_TOKENS`')
      .and.include('`/agent continue`')
      .and.match(/[\d,]+ of [\d,]+ tokens/);
  });

  it('budget.mr_max_usd holds across 3 runs on one merge request: the spend is summed from the earlier progress notes', async () => {
    const priced = {
      MR_AGENT_LLM_PRICE_INPUT_PER_MTOK: '100',
      MR_AGENT_LLM_PRICE_OUTPUT_PER_MTOK: '100',
    };
    const probe = await world.job({
      replies,
      variables: { ...world.bridgeVariables('run', 'add three steps'), ...priced },
    });
    const one = resultOf(probe).cost_usd!;
    expect(one).to.be.greaterThan(0);
    // room for the probe and one more run, not for a third
    const limit = Number((one * 2.5).toFixed(2));
    const spent = [one];
    for (let i = 0; i < 2; i++) {
      const job = await world.job({
        replies,
        variables: {
          ...world.bridgeVariables('run', 'add three steps'),
          ...priced,
          MR_AGENT_MR_BUDGET_USD: String(limit),
        },
      });
      expect(job.code, job.stderr).to.equal(0);
      const result = resultOf(job);
      spent.push(result.cost_usd!);
      expect(result.state).to.equal(i === 0 ? 'complete' : 'budget_exhausted');
      if (i === 1) {
        expect(result.budget?.stopped_by).to.equal('mr_max_usd');
        expect(result.budget?.mr_spent_usd).to.be.closeTo(
          spent.reduce((a, b) => a + b, 0),
          1e-4,
        );
        const note = world.progressNotes().at(-1)!;
        expect(note.body).to.include('`budget.mr_max_usd`').and.include('on this merge request');
      }
    }
    expect(spent.reduce((a, b) => a + b, 0)).to.be.at.most(limit * 1.05);
  });

  /** A job under a token budget of 60 % of what a full run of `script` costs; the branch is reset after the probe. */
  async function stoppedJob(script: unknown[]): Promise<{ job: JobRun; before: string }> {
    const before = world.branchHead();
    const probe = await world.job({
      replies: script,
      variables: world.bridgeVariables('run', 'add three steps'),
    });
    expect(probe.code, probe.stderr).to.equal(0);
    const limit = Math.floor(resultOf(probe).tokens.total * 0.6);
    const branch = `refs/heads/${world.s.mergeRequest.sourceBranch}`;
    world.git(world.s.project.repoDir, 'update-ref', branch, before);
    const job = await world.job({
      replies: script,
      variables: {
        ...world.bridgeVariables('run', 'add three steps'),
        MR_AGENT_BUDGET_TOKENS: String(limit),
      },
    });
    expect(job.code, job.stderr).to.equal(0);
    expect(resultOf(job).state).to.equal('budget_exhausted');
    return { job, before };
  }

  it('a budget stop keeps the change: pushed as a commit when the checks pass', async () => {
    const { before } = await stoppedJob(replies);
    const head = world.branchHead();
    expect(head).to.not.equal(before);
    const tree = world.git(world.s.project.repoDir, 'ls-tree', '-r', '--name-only', head);
    expect(tree).to.include('src/farewell.js');
    const note = world.progressNotes().at(-1)!.body;
    expect(note).to.include('### ⏸️ Budget reached').and.include(head.slice(0, 8));
  });

  it('a budget stop keeps a change whose checks fail as a patch: .mr-agent/patch.diff and a patch note, nothing pushed', async () => {
    // the first action does not make the check pass (src/farewell.js comes last)
    const reordered = [
      planning,
      ...[2, 3, 1].flatMap((n) => [
        {
          purpose: 'execution',
          tool_calls: [{ name: 'write_file', arguments: { path: PATHS[n - 1], content: FILE(n) } }],
        },
        { purpose: 'execution', content: `DONE: added step ${n}` },
      ]),
      { purpose: 'completion', json: assessment(true) },
    ];
    const { job, before } = await stoppedJob(reordered);
    expect(world.branchHead()).to.equal(before);
    const patch = readFileSync(path.join(job.dir, '.mr-agent/patch.diff'), 'utf8');
    expect(patch).to.include('src/step2.js');
    const patchNote = world.standIn.model.notes.find(
      (n) => n.authorId === world.s.bot.id && parseMarker(n.body)?.kind === 'patch',
    );
    expect(patchNote?.body)
      .to.include('src/step2.js')
      .and.include('the budget stopped the run and the checks did not pass');
  });

  it('without a budget no completion cap is sent', async () => {
    const job = await world.job({
      replies,
      variables: world.bridgeVariables('run', 'add three steps'),
    });
    expect(job.code, job.stderr).to.equal(0);
    expect(resultOf(job).budget).to.equal(undefined);
    for (const r of job.llm.requests) expect(r.body?.max_completion_tokens).to.equal(undefined);
  });
});
