import { expect } from 'chai';
import { FAREWELL_RUN, JobWorld } from './job-world.ts';

/**
 * At job start `mr-agent ci` reads `GET /version` (doc/api/version.md) from
 * the GitLab stand-in; what the instance lacks of the job's features is named
 * in the progress note with the version it needs and the fallback taken.
 */
describe('ci/gitlab version: the job names what an older GitLab lacks', function () {
  this.timeout(60_000);
  let world: JobWorld;

  beforeEach(async () => {
    world = await JobWorld.start();
  });
  afterEach(() => world.close());

  async function run(): Promise<string> {
    const job = await world.job({
      replies: FAREWELL_RUN,
      variables: {
        CI_PIPELINE_SOURCE: 'web',
        MR_AGENT_TASK: 'add a farewell function',
        MR_AGENT_MR_IID: String(world.s.mergeRequest.iid),
      },
    });
    expect(job.code, job.stderr).to.equal(0);
    expect(world.standIn.requests.count({ method: 'GET', route: '/version' })).to.equal(1);
    return world.progressNotes()[0]!.body;
  }

  it('an instance older than 15.5 and 18.1 gets one line per lacking feature, naming its version, the needed one and the fallback', async () => {
    world.standIn.model.gitlabVersion = '15.4.2-ee';

    const note = await run();

    expect(note).to.contain('This GitLab (15.4.2-ee) cannot show a token');
    expect(note).to.contain('GitLab 15.5 or newer');
    expect(note).to.contain("the token's `api` scope was not checked before the run");
    expect(note).to.contain(
      'takes no pipeline inputs through the trigger API (GitLab 18.1 or newer',
    );
    expect(note).to.contain('passes requests as pipeline variables');
  });

  it('an instance between the two gets only the line for what it lacks', async () => {
    world.standIn.model.gitlabVersion = '17.11.3';

    const note = await run();

    expect(note).not.to.contain('cannot show a token');
    expect(note).to.contain(
      'This GitLab (17.11.3) takes no pipeline inputs through the trigger API',
    );
  });

  it('a current instance gets no such line', async () => {
    world.standIn.model.gitlabVersion = '18.4.1-ee';

    const note = await run();

    expect(note).not.to.contain('This GitLab (');
  });
});
