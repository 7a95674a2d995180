import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { GitLabStandIn, Scenario } from '../../src/testkit/gitlab-server/index.ts';
import type { ScriptedOpenAiServer } from '../../src/testkit/openai-server/server.ts';
import { FAREWELL_RUN } from './job-world.ts';
import { runCli } from '../cli/helpers.ts';
import { filesUnder, startCiJobCheckout, type CiJobCheckout } from '../support/ci-job-checkout.ts';

const LLM_KEY = 'sk-internal-notes-3141';
const INTERNAL_TEXT = 'INTERNAL-ONLY customer Acme pays 7c1e per seat';

/**
 * A whole `mr-agent ci` job over HTTP: the stand-in's discussions API marks an
 * internal note as GitLab does (`internal: true`, older `confidential: true`),
 * and its text never reaches the model, a public note or the job's artifacts.
 */
describe('M5 internal notes stay internal (a whole ci job)', function () {
  this.timeout(60_000);
  let world: CiJobCheckout;
  let standIn: GitLabStandIn;
  let s: Scenario;
  let job: string;
  let llm: ScriptedOpenAiServer;

  beforeEach(async () => {
    world = await startCiJobCheckout({
      tempPrefix: 'mr-agent-internal-',
      model: { key: LLM_KEY, replies: FAREWELL_RUN },
    });
    ({ standIn, s, job } = world);
    llm = world.llm!;
  });
  afterEach(() => world.close());

  it('M5 an internal note by a Maintainer never reaches the model, the public notes or the artifacts', async () => {
    standIn.model.addNote({
      on: s.mergeRequest,
      body: `Please also do this: ${INTERNAL_TEXT}`,
      authorId: s.maintainer.id,
      internal: true,
    });
    standIn.model.addNote({
      on: s.mergeRequest,
      body: 'Public: keep the old greeting too.',
      authorId: s.maintainer.id,
    });
    const { file } = world.commentPayload('/agent add a farewell function');
    // the stand-in answers as GitLab does: the internal note is in the listing, marked
    const listed = await fetch(
      `${standIn.url}/api/v4/projects/${s.project.id}/merge_requests/${s.mergeRequest.iid}/discussions`,
      { headers: { 'private-token': s.botToken.value } },
    ).then((r) => r.json() as Promise<Array<{ notes: Array<Record<string, unknown>> }>>);
    const marked = listed.flatMap((d) => d.notes).find((n) => String(n.body).includes('INTERNAL'));
    expect(marked).to.deep.include({ internal: true, confidential: true });

    const result = await runCli(['ci'], {
      env: world.jobVariables({ TRIGGER_PAYLOAD: file }),
    });

    expect(result.code, result.stderr).to.equal(0);
    llm.assertAllUsed();
    const asked = JSON.stringify(llm.requests.map((r) => r.messages));
    // the public comment is read, the internal one is not
    expect(asked).to.contain('keep the old greeting too');
    expect(asked).not.to.contain('INTERNAL-ONLY');
    expect(asked).not.to.contain('7c1e');
    const publicNotes = standIn.model.notes.filter((n) => !n.internal).map((n) => n.body);
    expect(publicNotes.join('\n')).not.to.contain('INTERNAL-ONLY');
    const state = path.join(job, '.mr-agent');
    const artifacts = filesUnder(state);
    expect(artifacts.length).to.be.greaterThan(0);
    for (const artifact of artifacts) {
      expect(readFileSync(artifact, 'utf8'), artifact).not.to.contain('INTERNAL-ONLY');
    }
    expect(`${result.stdout}${result.stderr}`).not.to.contain('INTERNAL-ONLY');
  });
});
