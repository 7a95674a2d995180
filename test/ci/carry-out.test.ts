import { expect } from 'chai';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseMarker } from '../../src/report/marker.ts';
import { replanStateFile } from '../../src/phases/replan/state.ts';
import { action, assessment, planWith } from '../support/plans.ts';
import { FAREWELL, FAREWELL_WORK, JobWorld, LLM_KEY, requestsReached } from './job-world.ts';

const plan = planWith([action('task_1', 'Add farewell()')], ['farewell() exists']);
const planning = { purpose: 'planning', json: plan };

/**
 * `mr-agent ci` carries out the run (A1, B2, H1, H3, M6) over real HTTP:
 * the GitLab stand-in holds the merge request, its notes and the remote; the
 * scripted OpenAI-compatible server answers the model calls.
 */
describe('ci/carry-out (mr-agent ci runs the agent, stand-in + scripted model over HTTP)', function () {
  this.timeout(60_000);
  let world: JobWorld;

  beforeEach(async () => {
    world = await JobWorld.start();
  });
  afterEach(async () => {
    await world.close();
  });

  const stateOf = (body: string) => parseMarker(body)?.state;

  it('A4/H1/H3 `--step all` with MR_AGENT_TASK on a merge request completes, keeps one progress note and pushes', async () => {
    const job = await world.job({
      replies: [planning, ...FAREWELL_WORK],
      variables: {
        CI_PIPELINE_SOURCE: 'web',
        MR_AGENT_TASK: 'add a farewell function',
        MR_AGENT_MR_IID: String(world.s.mergeRequest.iid),
      },
    });

    expect(job.code, job.stderr).to.equal(0);
    job.llm.assertAllUsed();
    const notes = world.progressNotes();
    expect(notes).to.have.length(1);
    const note = notes[0]!.body;
    expect(parseMarker(note)).to.include({
      job: String(job.jobId),
      task: `job-${job.jobId}`,
      state: 'complete',
    });
    expect(note).to.contain('### ✅ Done · add a farewell function');
    expect(note).to.contain('**Next:** review [the commit]');
    expect(note).to.contain('All criteria are met.');
    const head = world.branchHead();
    expect(note).to.contain(`/-/commit/${head}`);
    expect(world.git(world.s.project.repoDir, 'show', `${head}:src/farewell.js`)).to.equal(
      FAREWELL.trimEnd(),
    );
    expect(world.git(world.s.project.repoDir, 'show', '-s', '--format=%an <%ae>%n%b', head))
      .to.contain(`mr-agent <${world.s.bot.id}-mr-agent-bot@users.noreply.127.0.0.1>`)
      .and.to.contain(`Requested in !${world.s.mergeRequest.iid}: add a farewell function`);
    expect(job.stdout + job.stderr + note).not.to.contain(LLM_KEY);
  });

  it('A4/H3 a manual run on a branch with neither merge request nor issue pushes to that branch; the notes are in the job log', async () => {
    const job = await world.job({
      replies: [planning, ...FAREWELL_WORK],
      variables: { CI_PIPELINE_SOURCE: 'web', MR_AGENT_TASK: 'add a farewell function' },
    });

    expect(job.code, job.stderr).to.equal(0);
    expect(world.progressNotes()).to.have.length(0);
    expect(job.stdout).to.contain('add a farewell function');
    const head = world.branchHead();
    expect(world.git(world.s.project.repoDir, 'show', `${head}:src/farewell.js`)).to.contain('Bye');
    expect(world.git(world.s.project.repoDir, 'show', '-s', '--format=%b', head)).to.contain(
      `Requested in a pipeline on ${world.s.mergeRequest.sourceBranch}: add a farewell function`,
    );
  });

  it('H3 a manual run on the default branch does not push there: the change goes to its own branch with a merge request into it, exit 3 (issue 18)', async () => {
    const main = world.git(world.s.project.repoDir, 'rev-parse', 'refs/heads/main');
    const job = await world.job({
      replies: [planning, ...FAREWELL_WORK],
      variables: {
        CI_PIPELINE_SOURCE: 'web',
        CI_COMMIT_REF_NAME: world.s.project.defaultBranch,
        MR_AGENT_TASK: 'add a farewell function',
      },
    });

    expect(job.code, job.stderr).to.equal(3);
    const branch = `mr-agent/main-${job.jobId}`;
    expect(job.stdout).to.match(
      new RegExp(
        `Pushed [0-9a-f]{7,} to \`${branch}\`, not to \`main\`: \`main\` is the default branch of acme/app`,
      ),
    );
    expect(world.git(world.s.project.repoDir, 'rev-parse', 'refs/heads/main')).to.equal(main);
    const mr = world.standIn.model.mergeRequests.find((m) => m.sourceBranch === branch);
    expect(mr?.targetBranch).to.equal('main');
  });

  it('A1 `/agent plan` stops after the plan: the note shows it, nothing is executed or pushed', async () => {
    const before = world.branchHead();
    const job = await world.job({
      replies: [planning],
      variables: world.bridgeVariables('plan', 'add a farewell function'),
    });

    expect(job.code, job.stderr).to.equal(0);
    job.llm.assertAllUsed();
    expect(job.llm.requests.map((r) => r.purpose)).to.deep.equal(['planning']);
    const note = world.progressNotes()[0]!.body;
    expect(stateOf(note)).to.equal('complete');
    expect(note).to.contain('Add farewell()');
    expect(note).to.contain('Comment `/agent approve` to carry it out as written.');
    expect(world.branchHead()).to.equal(before);
  });

  it('A1 `/agent approve` in a later pipeline carries out the posted plan without planning again', async () => {
    await world.job({
      replies: [planning],
      variables: world.bridgeVariables('plan', 'add a farewell function'),
    });

    const job = await world.job({
      replies: FAREWELL_WORK,
      variables: world.bridgeVariables('approve', ''),
    });

    expect(job.code, job.stderr).to.equal(0);
    job.llm.assertAllUsed();
    expect(job.llm.requests.map((r) => r.purpose)).not.to.include('planning');
    const notes = world.progressNotes();
    expect(notes).to.have.length(2);
    expect(stateOf(notes[1]!.body)).to.equal('complete');
    // the approved run works on the plan's request, not on the empty approve comment
    expect(notes[1]!.body).to.contain('### ✅ Done · add a farewell function');
    expect(
      world.git(world.s.project.repoDir, 'show', `${world.branchHead()}:src/farewell.js`),
    ).to.contain('Bye');
  });

  /** A second request on the same MR: plans `Add hello()`, which also writes the checked file. */
  const helloPlanning = {
    purpose: 'planning',
    json: planWith([action('task_1', 'Add hello()')], ['hello() exists']),
  };
  const helloWork = [
    {
      purpose: 'execution',
      tool_calls: [
        { name: 'write_file', arguments: { path: 'src/farewell.js', content: 'HELLO\n' } },
      ],
    },
    { purpose: 'execution', content: 'DONE: added hello()' },
    { purpose: 'completion', json: assessment(true) },
  ];

  it('issue 23: `/agent approve` carries out the plan `/agent plan` posted, not the newer plan of a later full run on the same MR', async () => {
    await world.job({
      replies: [planning],
      variables: world.bridgeVariables('plan', 'add a farewell function'),
    });
    const later = await world.job({
      replies: [helloPlanning, ...helloWork],
      variables: world.bridgeVariables('run', 'add a hello function'),
    });
    expect(later.code, later.stderr).to.equal(0);

    const job = await world.job({
      replies: FAREWELL_WORK,
      variables: world.bridgeVariables('approve', ''),
    });

    expect(job.code, job.stderr).to.equal(0);
    job.llm.assertAllUsed();
    const approved = world.progressNotes().at(-1)!.body;
    expect(approved).to.contain('### ✅ Done · add a farewell function');
    expect(approved).to.contain('Add farewell()').and.not.contain('Add hello()');
    expect(
      world.git(world.s.project.repoDir, 'show', `${world.branchHead()}:src/farewell.js`),
    ).to.contain('Bye');
  });

  it("issue 23: `/agent approve` replied in a plan run's thread takes that run's plan, even when another `/agent plan` is newer", async () => {
    await world.job({
      replies: [planning],
      variables: world.bridgeVariables('plan', 'add a farewell function'),
    });
    const farewellNote = world.progressNotes().at(-1)!;
    await world.job({
      replies: [helloPlanning],
      variables: world.bridgeVariables('plan', 'add a hello function'),
    });
    const reply = world.standIn.model.addNote({
      on: world.s.mergeRequest,
      body: '/agent approve',
      authorId: world.s.developer.id,
      discussionId: farewellNote.discussionId,
    });
    const variables = {
      ...world.bridgeVariables('approve', ''),
      MR_AGENT_NOTE_ID: String(reply.id),
    };

    const job = await world.job({ replies: FAREWELL_WORK, variables });

    expect(job.code, job.stderr).to.equal(0);
    const approved = world.progressNotes().at(-1)!.body;
    expect(approved).to.contain('### ✅ Done · add a farewell function');
    expect(approved).to.contain('Add farewell()').and.not.contain('Add hello()');
  });

  it('A1 `/agent approve` without a posted plan says so and exits 2', async () => {
    const job = await world.job({ replies: [], variables: world.bridgeVariables('approve', '') });

    expect(job.code).to.equal(2);
    expect(job.stderr).to.contain('there is no posted plan to approve here');
    expect(world.progressNotes()).to.have.length(0);
  });

  it('A1 `/agent retry` runs the last request again after a failed run', async () => {
    const failed = await world.job({
      replies: [{ purpose: 'planning', fault: 'bad_request', times: 0 }],
      variables: world.bridgeVariables('run', 'add a farewell function'),
    });
    expect(failed.code).to.equal(1);

    const job = await world.job({
      replies: [planning, ...FAREWELL_WORK],
      variables: world.bridgeVariables('retry', ''),
    });

    expect(job.code, job.stderr).to.equal(0);
    const notes = world.progressNotes();
    expect(notes.map((n) => stateOf(n.body))).to.deep.equal(['failed', 'complete']);
    expect(notes[1]!.body).to.contain('### ✅ Done · add a farewell function');
    const planningPrompt = JSON.stringify(job.llm.requests[0]!.messages);
    expect(planningPrompt).to.contain('add a farewell function');
  });

  it("seed 001 §7.3 `/agent retry` reuses the failed run's plan: no planning call, and the history shows the reuse", async () => {
    const failed = await world.job({
      replies: [planning, { purpose: 'execution', fault: 'bad_request', times: 0 }],
      variables: world.bridgeVariables('run', 'add a farewell function'),
    });
    expect(failed.code).to.equal(1);

    const job = await world.job({
      replies: FAREWELL_WORK,
      variables: world.bridgeVariables('retry', ''),
    });

    expect(job.code, job.stderr).to.equal(0);
    job.llm.assertAllUsed();
    expect(job.llm.requests.map((r) => r.purpose)).to.not.include('planning');
    expect(
      world.git(world.s.project.repoDir, 'show', `${world.branchHead()}:src/farewell.js`),
    ).to.contain('Bye');
    const history = readFileSync(
      path.join(job.dir, `.mr-agent/planning_history/job-${job.jobId}.jsonl`),
      'utf8',
    )
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; reused_from?: { task_id: string } });
    const reused = history.find((e) => e.type === 'plan');
    expect(reused?.reused_from).to.deep.include({
      task_id: `job-${failed.jobId}`,
      revisions: 0,
      reflections: 0,
    });
  });

  it('I2/F4 the replan state of the last run (a question still waiting for its answer) is restored for the next job', async () => {
    const first = await world.job({
      replies: [planning, ...FAREWELL_WORK],
      variables: world.bridgeVariables('run', 'add a farewell function'),
    });
    const paused = JSON.stringify({ version: 1, status: 'awaiting_answer', decisions: 3 });
    const replanFile = path.basename(
      replanStateFile('.', `${world.s.project.id}!${world.s.mergeRequest.iid}`),
    );
    mkdirSync(path.join(first.dir, '.mr-agent/replan'), { recursive: true });
    writeFileSync(path.join(first.dir, `.mr-agent/replan/${replanFile}`), paused);
    world.keepArtifacts(first.jobId, first.dir);

    const next = await world.job({
      replies: [planning, ...FAREWELL_WORK],
      variables: world.bridgeVariables('run', 'add a farewell function'),
    });

    expect(next.code, next.stderr).to.equal(0);
    const restored = path.join(next.dir, `.mr-agent/replan/${replanFile}`);
    expect(readFileSync(restored, 'utf8')).to.equal(paused);
  });

  it('M6 SIGTERM during the run: the note ends cancelled (never running) and the job exits 143', async () => {
    const job = await world.job({
      replies: [planning, { purpose: 'execution', fault: 'hang' }],
      variables: world.bridgeVariables('run', 'add a farewell function'),
      whileRunning: async ({ signal, llm }) => {
        await requestsReached(llm, 2);
        signal('SIGTERM');
      },
    });

    expect(job.code).to.equal(143);
    const notes = world.progressNotes();
    expect(notes).to.have.length(1);
    expect(stateOf(notes[0]!.body)).to.equal('cancelled');
    expect(existsSync(path.join(job.dir, 'src/farewell.js'))).to.equal(false);
  });

  it('M6 SIGTERM to the `mr-agent ci` process (GitLab cancelling the job): note cancelled, exit 143', async () => {
    const job = await world.job({
      childProcess: true,
      replies: [planning, { purpose: 'execution', fault: 'hang' }],
      variables: world.bridgeVariables('run', 'add a farewell function'),
      whileRunning: async ({ signal, llm }) => {
        await requestsReached(llm, 2);
        signal('SIGTERM');
      },
    });

    expect(job.code, job.stderr).to.equal(143);
    const notes = world.progressNotes();
    expect(notes.map((n) => stateOf(n.body))).to.deep.equal(['cancelled']);
    expect(notes[0]!.body).to.contain('Cancelled');
  });

  it('H1 a failing run leaves the note failed with the reason, exit 1', async () => {
    const job = await world.job({
      replies: [{ purpose: 'planning', fault: 'bad_request', times: 0 }],
      variables: world.bridgeVariables('run', 'add a farewell function'),
    });

    expect(job.code).to.equal(1);
    const note = world.progressNotes()[0]!.body;
    expect(stateOf(note)).to.equal('failed');
    expect(note).to.contain('❌');
    expect(note).not.to.match(/state=running/);
  });

  it('A1 an unknown command is refused with the list of commands, exit 2', async () => {
    const job = await world.job({ replies: [], variables: world.bridgeVariables('dance', 'now') });

    expect(job.code).to.equal(2);
    expect(job.stderr).to.contain('`dance` is not a command the agent carries out in a job');
    expect(world.progressNotes()).to.have.length(0);
  });
});
