import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { RunResultFile } from '../../src/report/result-file.ts';
import { commitFiles } from '../../src/testkit/gitlab-server/git.ts';
import { action, assessment, planWith } from '../support/plans.ts';
import { JobWorld, type JobRun } from '../ci/job-world.ts';

const FILE = (n: number) => `export const step${n} = ${n};\n`;
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
const workOf = (steps: number[]) =>
  steps.flatMap((n) => [
    {
      purpose: 'execution',
      tool_calls: [{ name: 'write_file', arguments: { path: PATHS[n - 1], content: FILE(n) } }],
    },
    { purpose: 'execution', content: `DONE: added step ${n}` },
  ]);
const completion = { purpose: 'completion', json: assessment(true) };
const replies = [planning, ...workOf([1, 2, 3]), completion];

function resultOf(job: JobRun): RunResultFile {
  return RunResultFile.parse(
    JSON.parse(readFileSync(path.join(job.dir, '.mr-agent/result.json'), 'utf8')),
  );
}

/**
 * `/agent continue` after a budget stop, over whole jobs: the first job's
 * checkpoint (a hidden ref on the stand-in) is what the second job goes on from.
 */
describe('resume from a checkpoint (issue 31)', function () {
  this.timeout(180_000);
  let world: JobWorld;

  beforeEach(async () => {
    world = await JobWorld.start();
  });
  afterEach(async () => {
    await world.close();
  });

  const checkpointRefs = () =>
    world
      .git(world.s.project.repoDir, 'for-each-ref', '--format=%(refname)', 'refs/mr-agent/')
      .split('\n')
      .filter(Boolean);

  /** A fresh run stopped by a token budget after its first action; the branch reset after the probe. */
  async function stopped(): Promise<{ job: JobRun; fullTokens: number }> {
    const before = world.branchHead();
    const probe = await world.job({
      replies,
      variables: world.bridgeVariables('run', 'add three steps'),
    });
    const fullTokens = resultOf(probe).tokens.total;
    world.git(
      world.s.project.repoDir,
      'update-ref',
      `refs/heads/${world.s.mergeRequest.sourceBranch}`,
      before,
    );
    const job = await world.job({
      replies,
      variables: {
        ...world.bridgeVariables('run', 'add three steps'),
        MR_AGENT_BUDGET_TOKENS: String(Math.floor(fullTokens * 0.6)),
      },
    });
    expect(resultOf(job).state).to.equal('budget_exhausted');
    expect(checkpointRefs(), 'the stopped run keeps its checkpoint').to.have.length(1);
    return { job, fullTokens };
  }

  it('/agent continue after a budget stop: 0 planning calls, 0 completed actions repeated, the checkpoint superseded', async () => {
    const { job: first } = await stopped();
    const doneFirst = resultOf(first).tokens.total;
    const job = await world.job({
      replies: [planning, ...workOf([2, 3]), completion],
      variables: world.bridgeVariables('continue', ''),
    });
    expect(job.code, job.stderr.slice(-3000)).to.equal(0);
    const result = resultOf(job);
    expect(result.state).to.equal('complete');
    const purposes = job.llm.requests.map((r) => r.purpose);
    expect(
      purposes.filter((p) => p === 'planning'),
      'planning calls',
    ).to.have.length(0);
    // two calls for each of the two actions still to do, none for the one done
    expect(purposes.filter((p) => p === 'execution')).to.have.length(4);
    const written = job.llm.requests.flatMap((r) => JSON.stringify(r.messages));
    expect(written.join('')).to.not.include('"content":"DONE: added step 1"');
    // what the resume spent to get back to where the first job stopped: the calls
    // before its first call for a remaining action (none), against the first job's tokens
    const firstExecution = purposes.indexOf('execution');
    const before = job.llm.requests.slice(0, firstExecution);
    const spentToCatchUp = before.reduce((sum, r) => sum + JSON.stringify(r.messages).length, 0);
    expect(firstExecution, 'calls before the first remaining action').to.equal(0);
    expect(spentToCatchUp).to.be.at.most(doneFirst * 0.2);
    const tree = world.git(
      world.s.project.repoDir,
      'ls-tree',
      '-r',
      '--name-only',
      world.branchHead(),
    );
    for (const file of PATHS) expect(tree).to.include(file);
    expect(world.progressNotes().at(-1)!.body).to.include('Went on from the checkpoint of job-');
    expect(checkpointRefs(), 'no checkpoint left once the run completed').to.deep.equal([]);
  });

  it('/agent continue +$X raises budget.max_usd by X for that run', async () => {
    const priced = {
      MR_AGENT_LLM_PRICE_INPUT_PER_MTOK: '100',
      MR_AGENT_LLM_PRICE_OUTPUT_PER_MTOK: '100',
      MR_AGENT_BUDGET_USD: '0.5',
    };
    const earlier = await world.job({
      replies,
      variables: { ...world.bridgeVariables('run', 'add three steps'), ...priced },
    });
    expect(resultOf(earlier).budget?.limit_usd).to.equal(0.5);
    const job = await world.job({
      replies,
      variables: { ...world.bridgeVariables('continue', '+$2.25'), ...priced },
    });
    expect(job.code, job.stderr.slice(-2000)).to.equal(0);
    expect(resultOf(job).budget?.limit_usd).to.equal(2.75);
  });

  it('a checkpoint older than the branch new commits is reported, not applied; a fresh plan is made', async () => {
    await stopped();
    await commitFiles(world.s.project.repoDir, world.s.mergeRequest.sourceBranch, {
      'NOTES.md': 'someone else pushed\n',
    });
    const job = await world.job({
      replies,
      variables: world.bridgeVariables('continue', ''),
    });
    expect(job.code, job.stderr.slice(-3000)).to.equal(0);
    expect(resultOf(job).state).to.equal('complete');
    expect(world.progressNotes().at(-1)!.body).to.not.include('Went on from the checkpoint');
    expect(world.progressNotes().at(-1)!.body).to.include(
      "is older than the branch's new commits: it was not applied, a fresh plan is made",
    );
  });

  it('a corrupt checkpoint falls back to a fresh plan and says so', async () => {
    const repo = world.s.project.repoDir;
    const earlier = await world.job({
      replies,
      variables: world.bridgeVariables('run', 'add three steps'),
    });
    expect(earlier.code).to.equal(0);
    const json = execGit(repo, ['hash-object', '-w', '--stdin'], '{"version": 1, "plan": 7}');
    const patch = execGit(repo, ['hash-object', '-w', '--stdin'], '');
    const tree = execGit(
      repo,
      ['mktree'],
      `100644 blob ${patch}\tchange.patch\n100644 blob ${json}\tcheckpoint.json\n`,
    );
    const commit = execGit(repo, ['commit-tree', tree, '-m', 'broken'], '');
    world.git(repo, 'update-ref', `refs/mr-agent/mr-${world.s.mergeRequest.iid}/job-1`, commit);
    const job = await world.job({
      replies,
      variables: world.bridgeVariables('continue', ''),
    });
    expect(job.code, job.stderr.slice(-3000)).to.equal(0);
    expect(world.progressNotes().at(-1)!.body).to.include('The checkpoint could not be read (');
    expect(world.progressNotes().at(-1)!.body).to.not.include('Went on from the checkpoint');
  });
});

function execGit(cwd: string, args: string[], input: string): string {
  return execFileSync('git', args, { cwd, input, encoding: 'utf8' }).trim();
}

describe('resume after a killed job (issue 31)', function () {
  this.timeout(180_000);
  let world: JobWorld;

  beforeEach(async () => {
    world = await JobWorld.start();
  });
  afterEach(async () => {
    await world.close();
  });

  it('/agent retry after a SIGKILL goes on from the checkpoint: 0 planning calls, the finished action not repeated', async () => {
    const refs = () =>
      world
        .git(world.s.project.repoDir, 'for-each-ref', '--format=%(refname)', 'refs/mr-agent/')
        .split('\n')
        .filter(Boolean);
    const killed = await world.job({
      replies,
      variables: world.bridgeVariables('run', 'add three steps'),
      childProcess: true,
      whileRunning: async ({ signal }) => {
        const deadline = Date.now() + 45_000;
        while (refs().length === 0 && Date.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, 20));
        signal('SIGKILL');
      },
    });
    expect(killed.code).to.not.equal(0);
    const checkpoint = JSON.parse(
      world.git(world.s.project.repoDir, 'cat-file', 'blob', `${refs()[0]}:checkpoint.json`),
    ) as { completed: { task_id: string }[] };
    const done = checkpoint.completed.map((a) => a.task_id);
    expect(done.length, 'the killed job finished an action').to.be.greaterThan(0);
    const left = [1, 2, 3].filter((n) => !done.includes(`task_${n}`));
    const job = await world.job({
      replies: [planning, ...workOf(left), completion],
      variables: world.bridgeVariables('retry', ''),
    });
    expect(
      job.code,
      job.stderr
        .split('\n')
        .filter((l) => /error|resume|checkpoint|fail/i.test(l))
        .join('\n')
        .slice(-4000),
    ).to.equal(0);
    const purposes = job.llm.requests.map((r) => r.purpose);
    expect(purposes.filter((p) => p === 'planning')).to.have.length(0);
    expect(purposes.filter((p) => p === 'execution')).to.have.length(2 * left.length);
    const tree = world.git(
      world.s.project.repoDir,
      'ls-tree',
      '-r',
      '--name-only',
      world.branchHead(),
    );
    for (const file of PATHS) expect(tree).to.include(file);
    expect(refs()).to.deep.equal([]);
  });
});
