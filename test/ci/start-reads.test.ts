import { expect } from 'chai';
import { setTimeout as wait } from 'node:timers/promises';
import { parseCiContext } from '../../src/ci/context.ts';
import { withStartReadsAsked } from '../../src/ci/start-reads.ts';
import { startWorld, type World } from '../gitlab/world.ts';

/**
 * A job's start reads go out as soon as it has its GitLab client, before the
 * run path loads; the checks then take each answer once. Over real HTTP
 * against the GitLab stand-in.
 */
describe('ci/start reads: asked at once, each answer used once (H1, A3)', () => {
  let w: World;
  beforeEach(async () => {
    w = await startWorld();
  });
  afterEach(() => w.close());

  function contextFor(extra: Record<string, string>) {
    return parseCiContext(
      {
        CI_API_V4_URL: `${w.standIn.url}/api/v4`,
        CI_SERVER_URL: w.standIn.url,
        CI_PROJECT_ID: String(w.s.project.id),
        CI_PROJECT_PATH: w.s.project.path,
        CI_PROJECT_DIR: '/builds/app',
        CI_DEFAULT_BRANCH: w.s.project.defaultBranch,
        CI_COMMIT_REF_NAME: w.s.mergeRequest.sourceBranch,
        CI_PIPELINE_ID: '900',
        CI_JOB_ID: '901',
        CI_PIPELINE_SOURCE: 'trigger',
        GITLAB_USER_ID: String(w.s.maintainer.id),
        ...extra,
      },
      'all',
    );
  }

  const bridgeRequest = () => ({
    MR_AGENT_SOURCE: 'note',
    MR_AGENT_COMMAND: 'run',
    MR_AGENT_TASK: 'add a farewell function',
    MR_AGENT_NOTE_ID: '555',
    MR_AGENT_MR_IID: String(w.s.mergeRequest.iid),
    MR_AGENT_TRIGGERED_BY: String(w.s.developer.id),
  });

  it('H1 a request the variables name: its start reads are asked before anyone calls for them, and each is answered from there once', async () => {
    const context = contextFor(bridgeRequest());
    const gitlab = withStartReadsAsked(w.gitlab, context);
    await wait(300);
    const asked = w.standIn.requests.entries.length;
    expect(asked, 'reads asked before any check ran').to.be.greaterThanOrEqual(7);
    expect(
      w.standIn.requests.entries.map((e) => e.path),
      "GitLab's version is not a start read (the run asks it after its note)",
    ).not.to.include('/api/v4/version');

    const project = w.s.project.id;
    const on = { type: 'merge_request' as const, iid: w.s.mergeRequest.iid };
    const [token, bot, found, mr, threads, role] = await Promise.all([
      gitlab.tokenInfo(),
      gitlab.currentUser(),
      gitlab.getProject(project),
      gitlab.getMergeRequest(project, w.s.mergeRequest.iid),
      gitlab.listDiscussions(project, on),
      gitlab.accessLevel(project, w.s.developer.id),
    ]);
    expect(token.scopes).to.include('api');
    expect(bot.id).to.equal(w.s.bot.id);
    expect(found.id).to.equal(project);
    expect(mr.iid).to.equal(w.s.mergeRequest.iid);
    expect(threads).to.be.an('array');
    expect(role).to.be.greaterThan(0);
    expect(w.standIn.requests.entries.length, 'answers taken from the reads asked').to.equal(asked);

    // asked again, or with other arguments: GitLab is asked
    await gitlab.getProject(project);
    await gitlab.accessLevel(project, w.s.maintainer.id + 1000);
    expect(w.standIn.requests.entries.length).to.equal(asked + 2);
  });

  it('A3 a TRIGGER_PAYLOAD job asks nothing ahead: the payload is decided first', async () => {
    const context = contextFor({ TRIGGER_PAYLOAD: '/nonexistent/payload.json' });
    const gitlab = withStartReadsAsked(w.gitlab, context);
    await wait(200);
    expect(gitlab).to.equal(w.gitlab);
    expect(w.standIn.requests.entries).to.deep.equal([]);
  });
});
