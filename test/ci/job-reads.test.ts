import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { GitLabStandIn, Scenario } from '../../src/testkit/gitlab-server/index.ts';
import type { ScriptedOpenAiServer } from '../../src/testkit/openai-server/server.ts';
import { FAREWELL_RUN } from './job-world.ts';
import { runCli } from '../cli/helpers.ts';
import {
  listenLocally,
  startCiJobCheckout,
  type CiJobCheckout,
} from '../support/ci-job-checkout.ts';

const LLM_KEY = 'sk-job-reads-secret-5150';

/** The reads a job makes before it may post anything (start checks and the claim). */
const START_READS = [
  'GET /personal_access_tokens/self',
  'GET /user',
  'GET /projects/:id',
  'GET /projects/:id/repository/files/:file_path/raw',
];

/**
 * Issue 17 (each read once per job) and issue 22 (independent start-up reads
 * at once, the progress note as early as the start checks allow), checked on
 * the GitLab stand-in's request log for whole `mr-agent ci` jobs over HTTP.
 */
describe('ci job reads: each GitLab read once per job (issue 17, issue 22)', function () {
  this.timeout(60_000);
  let world: CiJobCheckout;
  let standIn: GitLabStandIn;
  let s: Scenario;
  let llm: ScriptedOpenAiServer;
  let userConfig: Server;
  let userConfigUrl: string;
  let userConfigHits: number;
  let userConfigAsked: string[];

  beforeEach(async () => {
    world = await startCiJobCheckout({
      tempPrefix: 'mr-agent-job-reads-',
      model: { key: LLM_KEY, replies: FAREWELL_RUN },
    });
    ({ standIn, s } = world);
    llm = world.llm!;
    userConfigHits = 0;
    userConfigAsked = [];
    userConfig = createServer((req, res) => {
      userConfigHits++;
      userConfigAsked.push(req.url ?? '');
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ status: 'success', data: { planning: { max_subtasks: 7 } } }));
    });
    userConfigUrl = await listenLocally(userConfig);
  });
  afterEach(async () => {
    await world.close();
    userConfig.close();
  });

  function jobEnv(extra: Record<string, string>): Record<string, string> {
    return world.jobVariables({ USER_CONFIG_API_URL: `${userConfigUrl}/cfg`, ...extra });
  }

  /** An earlier comment by a developer, so the discussion has an author to look up. */
  function comment(body: string, author = s.developer) {
    return standIn.model.addNote({ on: s.mergeRequest, body, authorId: author.id });
  }

  function payloadFile(body: string): string {
    return world.commentPayload(body).file;
  }

  /** C5 the conversation reads one newest-first page of notes per checkpoint, never a full listing. */
  function expectOnlyNewestNotePages(route: string, checkpoints: number): void {
    const notes = standIn.requests.entries.filter((e) => e.method === 'GET' && e.route === route);
    expect(notes, route).to.have.length(checkpoints);
    for (const read of notes) expect(read.query).to.include('sort=desc').and.include('page=1');
  }

  const members = (userId: number) =>
    standIn.requests.entries.filter(
      (e) => e.route === '/projects/:id/members/all/:user_id' && e.path.endsWith(`/${userId}`),
    ).length;

  it('issue 17 #6: one `/agent` run on an MR reads the MR, its threads, each member and the configuration once', async () => {
    comment('Please keep the old name too.', s.maintainer);
    const file = payloadFile('/agent add a farewell function');
    standIn.requests.clear();

    const result = await runCli(['ci'], { env: jobEnv({ TRIGGER_PAYLOAD: file }) });

    expect(result.code, result.stderr).to.equal(0);
    llm.assertAllUsed();
    const reads = standIn.requests.byRoute();
    for (const route of [
      ...START_READS,
      'GET /projects/:id/merge_requests/:iid',
      'GET /projects/:id/merge_requests/:iid/discussions',
      'GET /projects/:id/merge_requests/:iid/diffs',
    ]) {
      expect(reads[route], route).to.equal(1);
    }
    // the one thread listing serves gather and history: no second listing as `/notes`;
    // only the conversation's look for new comments, one newest-first page a checkpoint
    // (after the one action, before delivery), and one more once the final note is up
    expectOnlyNewestNotePages('/projects/:id/merge_requests/:iid/notes', 3);
    // the commenter (claim, start check, discussion) and the pipeline's user, once each
    expect(members(s.developer.id), 'the commenter').to.equal(1);
    expect(members(s.maintainer.id), 'the pipeline user and earlier commenter').to.equal(1);
    expect(userConfigHits, 'the user-config API').to.equal(1);
  });

  it('issue 17 #6: a run on an issue reads the issue once', async () => {
    standIn.requests.clear();

    const result = await runCli(['ci'], {
      env: jobEnv({
        CI_PIPELINE_SOURCE: 'web',
        CI_COMMIT_REF_NAME: s.project.defaultBranch,
        GITLAB_USER_ID: String(s.developer.id),
        MR_AGENT_TASK: 'add a farewell function',
        MR_AGENT_ISSUE_IID: String(s.issue.iid),
      }),
    });

    expect(result.code, result.stderr).to.equal(0);
    const reads = standIn.requests.byRoute();
    expect(
      reads['GET /projects/:id/issues/:issue_iid'] ?? reads['GET /projects/:id/issues/:iid'],
    ).to.equal(1);
    expect(reads['GET /projects/:id/issues/:iid/discussions']).to.equal(1);
    expectOnlyNewestNotePages('/projects/:id/issues/:iid/notes', 3);
    expect(members(s.developer.id)).to.equal(1);
    expect(userConfigHits).to.equal(1);
  });

  it('issue 22: before the progress note the job reads only what the start checks and the claim need, each once', async () => {
    const file = payloadFile('/agent add a farewell function');
    standIn.requests.clear();

    const result = await runCli(['ci'], { env: jobEnv({ TRIGGER_PAYLOAD: file }) });

    expect(result.code, result.stderr).to.equal(0);
    const entries = standIn.requests.entries;
    const note = entries.findIndex(
      (e) => e.method === 'POST' && e.route === '/projects/:id/merge_requests/:iid/notes',
    );
    expect(note).to.be.greaterThan(0);
    const lockRemoval = 'DELETE /projects/:id/:noteables/:iid/award_emoji/:award_id';
    const runMark = (e: (typeof entries)[number]) =>
      e.route === '/projects/:id/merge_requests/:iid/notes/:note_id/award_emoji' &&
      (e.input ?? '').includes('arrow_forward');
    const before = entries
      .slice(0, note)
      // the ▶ and the lock's removal after it are not waited for: before the note or after it
      .filter((e) => !runMark(e) && `${e.method} ${e.route}` !== lockRemoval)
      .map((e) => `${e.method} ${e.route}`);
    expect([...before].sort()).to.deep.equal(
      [
        ...START_READS,
        'GET /projects/:id/members/all/:user_id', // the commenter
        'GET /projects/:id/members/all/:user_id', // the pipeline's user
        'GET /projects/:id/merge_requests/:iid',
        'GET /projects/:id/merge_requests/:iid/discussions',
        'POST /projects/:id/merge_requests/:iid/notes/:note_id/award_emoji', // 👀, the claim
        // A6: "look for a run, then go on as it" under the target's 🔒 (an award on the MR,
        // made while the 👀 is), then the ▶ on the comment makes this job the run for the next
        'POST /projects/:id/:noteables/:iid/award_emoji',
        'GET /projects/:id/pipelines',
      ].sort(),
    );
    // GitLab's version only adds lines to the run's notes: asked once the note is out
    expect(
      entries.slice(note).filter((e) => `${e.method} ${e.route}` === 'GET /version'),
      'the version asked after the note',
    ).to.have.length(1);
    expect(entries.filter(runMark), 'the ▶, once').to.have.length(1);
    // every lock taken (here, and by the run's closing read) is removed
    const count = (request: string) =>
      entries.filter((e) => `${e.method} ${e.route}` === request).length;
    expect(count(lockRemoval), 'locks removed').to.equal(
      count('POST /projects/:id/:noteables/:iid/award_emoji'),
    );
    expect(standIn.model.targetAwards).to.deep.equal([]);
  });

  it("seed 001 §9.3: the user-config API is asked with the commenter's identity (TRIGGER_PAYLOAD)", async () => {
    const file = payloadFile('/agent add a farewell function');

    const result = await runCli(['ci'], { env: jobEnv({ TRIGGER_PAYLOAD: file }) });

    expect(result.code, result.stderr).to.equal(0);
    expect(userConfigAsked).to.have.length(1);
    const asked = new URL(userConfigAsked[0]!, 'http://x');
    expect(asked.pathname).to.equal('/cfg');
    expect(Object.fromEntries(asked.searchParams)).to.deep.equal({
      platform: 'gitlab',
      username: s.developer.username,
      user_id: String(s.developer.id),
    });
  });

  it('seed 001 §9.3: a bridge run (variables carry the id only) asks for the commenter found in the threads, in the URL path when it names {platform}/{username}', async () => {
    const note = comment('/agent add a farewell function');

    const result = await runCli(['ci'], {
      env: jobEnv({
        MR_AGENT_SOURCE: 'note',
        MR_AGENT_COMMAND: 'run',
        MR_AGENT_TASK: 'add a farewell function',
        MR_AGENT_NOTE_ID: String(note.id),
        MR_AGENT_MR_IID: String(s.mergeRequest.iid),
        MR_AGENT_TRIGGERED_BY: String(s.developer.id),
        USER_CONFIG_API_URL: `${userConfigUrl}/config/{platform}/{username}`,
      }),
    });

    expect(result.code, result.stderr).to.equal(0);
    expect(userConfigAsked).to.deep.equal([`/config/gitlab/${s.developer.username}`]);
  });
});
