import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { GitLabStandIn, Scenario } from '../../src/testkit/gitlab-server/index.ts';
import type { ScriptedOpenAiServer } from '../../src/testkit/openai-server/server.ts';
import { runCli } from '../cli/helpers.ts';
import { filesUnder, startCiJobCheckout, type CiJobCheckout } from '../support/ci-job-checkout.ts';
import { standInJobVariables } from './job-world.ts';

const LLM_KEY = 'sk-confidential-issue-2718';
const SECRET_TITLE = 'CONFIDENTIAL-TITLE breach at Acme';
const SECRET_TEXT = 'CONFIDENTIAL-BODY the admin password of Acme is 9f3e';

/**
 * A run started by variables on a confidential issue: everything the agent
 * writes is public, so the job refuses before the issue's text goes
 * anywhere, says why in the job log, in result.json, and in an internal note.
 */
describe('M5 a run on a confidential issue is refused before its text is read (a whole ci job)', function () {
  this.timeout(60_000);
  let world: CiJobCheckout;
  let standIn: GitLabStandIn;
  let s: Scenario;
  let root: string;
  let job: string;
  let llm: ScriptedOpenAiServer;

  beforeEach(async () => {
    world = await startCiJobCheckout({
      tempPrefix: 'mr-agent-confidential-',
      onDefaultBranch: true,
      model: { key: LLM_KEY, replies: [] },
    });
    ({ standIn, s, root, job } = world);
    llm = world.llm!;
  });
  afterEach(() => world.close());

  function runJob(issueIid: number) {
    return runCli(['ci'], {
      env: {
        ...standInJobVariables(standIn, s, {
          dir: job,
          home: root,
          ref: s.project.defaultBranch,
          pipelineId: 910,
          jobId: 911,
          source: 'web',
          userId: s.developer.id,
        }),
        MR_AGENT_TASK: 'fix what the issue describes',
        MR_AGENT_ISSUE_IID: String(issueIid),
        OPENAI_API_KEY: LLM_KEY,
        OPENAI_BASE_URL: llm.url,
        MR_AGENT_LLM_MODEL: 'scripted-model',
        MR_AGENT_ENVIRONMENT_SETUP: 'false',
      },
    });
  }

  it('M5 a manual run on a confidential issue: no model call, no public note, an internal note and a failed result.json with the reason', async () => {
    const issue = standIn.model.createIssue({
      project: s.project,
      title: SECRET_TITLE,
      description: SECRET_TEXT,
      authorId: s.maintainer.id,
      confidential: true,
    });
    const notesBefore = standIn.model.notes.length;

    const result = await runJob(issue.iid);

    expect(result.code, result.stderr).to.not.equal(0);
    expect(llm.requests).to.have.length(0);
    const log = `${result.stdout}${result.stderr}`;
    expect(log).to.contain(`issue #${issue.iid} is confidential`);
    const written = standIn.model.notes.slice(notesBefore);
    expect(written.filter((n) => !n.internal)).to.deep.equal([]);
    expect(written).to.have.length(1);
    expect(written[0]!.body).to.contain('confidential');
    const resultFile = JSON.parse(
      readFileSync(path.join(job, '.mr-agent', 'result.json'), 'utf8'),
    ) as { status: string; summary: string };
    expect(resultFile.status).to.equal('failed');
    expect(resultFile.summary).to.contain(`issue #${issue.iid} is confidential`);
    expect(standIn.model.mergeRequests).to.have.length(1); // the scenario's own; none created
    for (const secret of ['CONFIDENTIAL-TITLE', 'CONFIDENTIAL-BODY', '9f3e']) {
      expect(log).not.to.contain(secret);
      expect(written.map((n) => n.body).join('\n')).not.to.contain(secret);
      for (const artifact of filesUnder(path.join(job, '.mr-agent'))) {
        expect(readFileSync(artifact, 'utf8'), artifact).not.to.contain(secret);
      }
    }
  });
});
