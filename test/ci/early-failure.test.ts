import { expect } from 'chai';
import { englishWords, renderGitLab } from '../support/gitlab-markdown.ts';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseMarker } from '../../src/report/marker.ts';
import { action, planWith } from '../support/plans.ts';
import { FAREWELL_RUN, JobWorld } from './job-world.ts';

function resultOf(dir: string): { status?: string; exit_code?: number; summary?: string } {
  const file = path.join(dir, '.mr-agent', 'result.json');
  expect(existsSync(file), 'result.json is written').to.equal(true);
  return JSON.parse(readFileSync(file, 'utf8')) as { status?: string; exit_code?: number };
}

/**
 * Every failure reaches the requester (issue 18, SPEC O4): also a failure
 * before the progress note exists ends with a note where GitLab lets one be
 * written — a reply in the command's thread saying what went wrong and what
 * to do — plus `result.json` and a non-zero exit; a job whose final state
 * cannot be written says so and exits non-zero; a silent GitLab fails the
 * job within the request budget. Over real HTTP against the stand-in.
 */
describe('ci early failures (every end reaches the requester)', function () {
  this.timeout(60_000);
  let world: JobWorld;

  beforeEach(async () => {
    world = await JobWorld.start();
  });
  afterEach(async () => {
    world.standIn.faults.clear();
    await world.close();
  });

  /** Commits a file on the project's default branch in the stand-in's repository. */
  function commitOnDefaultBranch(file: string, text: string): void {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'mr-agent-default-branch-'));
    try {
      const clone = path.join(tmp, 'c');
      const branch = world.s.project.defaultBranch;
      execFileSync('git', ['clone', '-q', '-b', branch, world.s.project.repoDir, clone]);
      writeFileSync(path.join(clone, file), text);
      world.git(clone, 'add', file);
      world.git(
        clone,
        '-c',
        'user.name=t',
        '-c',
        'user.email=t@example.com',
        'commit',
        '-qm',
        'cfg',
      );
      world.git(clone, 'push', '-q', 'origin', branch);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }

  const botNotes = () => world.standIn.model.notes.filter((n) => n.authorId === world.s.bot.id);

  it("O4 an invalid .mr-agent.yml on the default branch: a reply in the command's thread says what and where, result.json, exit 2", async () => {
    commitOnDefaultBranch('.mr-agent.yml', 'planning:\n  strategy: sideways\n');
    const variables = world.bridgeVariables('run', 'add a farewell function');
    const command = world.standIn.model.notes.find(
      (n) => n.id === Number(variables.MR_AGENT_NOTE_ID),
    )!;

    const job = await world.job({ replies: [], variables });

    expect(job.code, job.stderr.slice(-2000)).to.equal(2);
    expect(job.llm.requests).to.have.length(0);
    const replies = botNotes();
    expect(replies).to.have.length(1);
    expect(replies[0]!.discussionId).to.equal(command.discussionId);
    expect(replies[0]!.body)
      .to.contain('.mr-agent.yml')
      .and.to.contain('planning.strategy')
      .and.to.contain(`/-/jobs/${job.jobId}`);
    const result = resultOf(job.dir);
    expect(result.status).to.equal('failed');
    expect(result.exit_code).to.equal(2);
  });

  it('O4 #23 a Japanese command whose job cannot start: the reply is Japanese, the configuration problem only as code', async () => {
    commitOnDefaultBranch('.mr-agent.yml', 'planning:\n  strategy: sideways\n');
    const variables = world.bridgeVariables('run', 'farewell 関数を追加してください');

    const job = await world.job({ replies: [], variables });

    expect(job.code, job.stderr.slice(-2000)).to.equal(2);
    const body = botNotes()[0]!.body;
    expect(body).to.contain('mr-agent は実行を開始できませんでした');
    expect(body).to.contain('**対処方法:** 示された値を直し');
    expect(body).to.match(/- `\.mr-agent\.yml .*planning\.strategy: expected one of/);
    const words = englishWords(renderGitLab(body)).filter((w) => !['mr', 'agent'].includes(w));
    expect(words, body).to.deep.equal([]);
  });

  it('O4 a Retry-After GitLab will not wait out (429, an hour): a reply in the thread says so, result.json, exit 1', async () => {
    world.standIn.faults.add({
      method: 'GET',
      path: '/personal_access_tokens/self',
      status: 429,
      retryAfter: 3600,
    });
    const variables = world.bridgeVariables('run', 'add a farewell function');

    const job = await world.job({ replies: [], variables });

    expect(job.code).to.equal(1);
    const replies = botNotes();
    expect(replies).to.have.length(1);
    expect(replies[0]!.body).to.contain('HTTP 429').and.to.contain('rate-limited');
    expect(resultOf(job.dir)).to.include({ status: 'failed', exit_code: 1 });
  });

  it('O4 a merge request that does not exist: result.json and a non-zero exit that says so in the job log', async () => {
    const variables = {
      ...world.bridgeVariables('run', 'add a farewell function'),
      MR_AGENT_MR_IID: '4242',
    };

    const job = await world.job({ replies: [], variables });

    expect(job.code).to.not.equal(0);
    expect(job.stderr).to.match(/^mr-agent: .*merge_requests\/4242 answered HTTP 404/m);
    const result = resultOf(job.dir);
    expect(result.status).to.equal('failed');
    expect(result.exit_code).to.equal(job.code);
  });

  it("O4/H1 a checkout that fails after the job's first progress note: that note ends as failed, the thread hears why, exit non-zero", async () => {
    // a pipeline on the default branch fetches the merge request's head, which GitLab no longer has
    const iid = world.s.mergeRequest.iid;
    world.git(world.s.project.repoDir, 'update-ref', '-d', `refs/merge-requests/${iid}/head`);

    const job = await world.job({
      replies: [],
      ref: world.s.project.defaultBranch,
      variables: world.bridgeVariables('run', 'add a farewell function'),
    });

    expect(job.code).to.not.equal(0);
    const notes = world.progressNotes();
    expect(notes, 'one progress note: posted at the start, ended').to.have.length(1);
    expect(parseMarker(notes[0]!.body)?.state).to.equal('failed');
    const replies = botNotes().filter((n) => n.body.includes('could not start the run'));
    expect(replies).to.have.length(1);
    expect(resultOf(job.dir)).to.include({ status: 'failed', exit_code: job.code });
  });

  it('O4 GitLab refusing every new note (500): the job exits non-zero and says the final state is not on the merge request', async () => {
    world.standIn.faults.add({
      method: 'POST',
      path: /\/notes$/,
      status: 500,
      times: Infinity,
    });

    const job = await world.job({
      replies: FAREWELL_RUN,
      variables: {
        ...world.bridgeVariables('run', 'add a farewell function'),
        MR_AGENT_GITLAB_REQUEST_BUDGET_SEC: '3',
      },
    });

    expect(job.code).to.not.equal(0);
    expect(job.stdout).to.contain('could not be written');
    expect(resultOf(job.dir).exit_code).to.equal(job.code);
  });

  it('O4 GitLab refusing every note edit (500): the note cannot reach its final state, so the job exits non-zero', async () => {
    world.standIn.faults.add({
      method: 'PUT',
      path: /\/notes\/\d+$/,
      status: 500,
      times: Infinity,
    });

    const job = await world.job({
      replies: FAREWELL_RUN,
      variables: {
        ...world.bridgeVariables('run', 'add a farewell function'),
        MR_AGENT_GITLAB_REQUEST_BUDGET_SEC: '3',
      },
    });

    expect(job.code).to.not.equal(0);
    expect(job.stdout).to.contain('could not be written');
    expect(parseMarker(world.progressNotes()[0]!.body)?.state).to.equal('running');
  });

  it('O4 a silent GitLab fails the job within the request budget (gitlab.request_budget_sec), with result.json', async () => {
    world.standIn.faults.add({ hang: true, times: Infinity });
    const started = Date.now();

    const job = await world.job({
      replies: [],
      variables: {
        ...world.bridgeVariables('run', 'add a farewell function'),
        MR_AGENT_GITLAB_REQUEST_BUDGET_SEC: '2',
      },
    });

    expect(Date.now() - started).to.be.below(15_000);
    expect(job.code).to.equal(1);
    expect(job.stdout + job.stderr).to.contain('gitlab.request_budget_sec');
    expect(resultOf(job.dir).status).to.equal('failed');
  });

  it("A2/M4 a Guest's command gets neither 👀 nor a run nor a note", async () => {
    const noteId = world.standIn.model.addNote({
      on: world.s.mergeRequest,
      body: '/agent fix it',
      authorId: world.s.guest.id,
    }).id;

    const job = await world.job({
      replies: [],
      variables: {
        MR_AGENT_SOURCE: 'note',
        MR_AGENT_COMMAND: 'run',
        MR_AGENT_TASK: 'fix it',
        MR_AGENT_NOTE_ID: String(noteId),
        MR_AGENT_MR_IID: String(world.s.mergeRequest.iid),
        MR_AGENT_TRIGGERED_BY: String(world.s.guest.id),
      },
    });

    expect(job.code).to.equal(2);
    expect(job.llm.requests).to.have.length(0);
    expect(world.standIn.model.awards.filter((a) => a.noteId === noteId)).to.have.length(0);
    expect(botNotes()).to.have.length(0);
  });
});

describe('ci early failures in the run job of the two-step flow', function () {
  this.timeout(60_000);
  let world: JobWorld;

  beforeEach(async () => {
    world = await JobWorld.start();
  });
  afterEach(async () => {
    world.standIn.faults.clear();
    await world.close();
  });

  it("O4/B2 a run job that fails before it takes over the plan job's note ends that note as failed and replies in the thread", async () => {
    const plan = await world.job({
      step: 'plan',
      replies: [
        {
          purpose: 'planning',
          json: planWith([action('task_1', 'Add farewell()')], ['farewell() exists']),
        },
      ],
      variables: world.bridgeVariables('run', 'add a farewell function'),
    });
    expect(plan.code, plan.stderr.slice(-2000)).to.equal(0);
    world.standIn.faults.add({
      method: 'GET',
      path: '/personal_access_tokens/self',
      status: 429,
      retryAfter: 3600,
    });

    const run = await world.job({
      step: 'run',
      replies: [],
      variables: { CI_PIPELINE_SOURCE: 'parent_pipeline' },
      artifactsFrom: plan,
    });

    expect(run.code).to.equal(1);
    const notes = world.progressNotes();
    expect(notes).to.have.length(1);
    expect(parseMarker(notes[0]!.body)?.state).to.equal('failed');
    const replies = world.standIn.model.notes.filter(
      (n) => n.authorId === world.s.bot.id && n.body.includes('could not start the run'),
    );
    expect(replies).to.have.length(1);
    expect(resultOf(run.dir)).to.include({ status: 'failed', exit_code: 1 });
  });
});
