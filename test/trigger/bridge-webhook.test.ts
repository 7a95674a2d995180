import { expect } from 'chai';
import type { GitLabPort, Noteable } from '../../src/core/gitlab-port.ts';
import type { BridgeWorld } from './bridge-world.ts';
import { startWebhookBridgeWorld } from '../support/webhook-bridge-world.ts';

/**
 * The whole path as in production: a person comments through the GitLab API,
 * the stand-in sends its own Comments webhook (GitLab's headers, its
 * auto-disable rule) to the bridge, and the bridge works through the API.
 */
describe('A2 GitLab webhook → bridge → pipeline (stand-in project webhook)', function () {
  this.timeout(20_000);
  let w: BridgeWorld;
  let developer: GitLabPort;
  let mr: Noteable;
  let settle: () => Promise<void>;

  beforeEach(async () => {
    ({ w, developer, mr, settle } = await startWebhookBridgeWorld());
  });
  afterEach(() => w.close());

  it('a comment made through the API starts the pipeline; ordinary comments keep the hook healthy', async () => {
    const note = await developer.createNote(w.s.project.id, mr, '/agent fix the typo');
    for (let i = 0; i < 6; i++) await developer.createNote(w.s.project.id, mr, `nit ${i}`);
    await settle();
    const [pipeline, ...others] = w.triggerPipelines();
    expect(others).to.have.length(0);
    expect(pipeline?.variables).to.include({
      MR_AGENT_NOTE_ID: String(note.id),
      MR_AGENT_TASK: 'fix the typo',
    });
    const [hook] = w.standIn.hooks.hooks;
    expect(hook).to.include({ disabled: false, consecutiveFailures: 0 });
    expect(w.standIn.hooks.deliveries.every((d) => d.status === 200 || d.status === 202)).to.equal(
      true,
    );
  });

  it("the bridge's own replies come back as webhooks and are ignored", async () => {
    await developer.createNote(w.s.project.id, mr, '/agent help');
    await settle();
    const replies = w.standIn.model.notes.filter((n) => n.authorId === w.s.bot.id);
    expect(replies).to.have.length(1);
    expect(w.standIn.hooks.deliveries).to.have.length(2);
    expect(w.logLines.some((l) => l.includes('"reason":"own-note"'))).to.equal(true);
  });

  it('a confidential note starts nothing public: no public note, no pipeline, one internal reply (issue 19 §6)', async () => {
    const response = await fetch(
      `${w.standIn.url}/api/v4/projects/${w.s.project.id}/merge_requests/${mr.iid}/notes`,
      {
        method: 'POST',
        headers: {
          'PRIVATE-TOKEN': w.s.developerToken.value,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ body: '/agent fix the secret bug', internal: true }),
      },
    );
    expect(response.status).to.equal(201);
    await settle();
    expect(w.standIn.hooks.deliveries.map((d) => d.event)).to.deep.equal([
      'Confidential Note Hook',
      // the bridge's own internal reply comes back and is ignored
      'Confidential Note Hook',
    ]);
    expect(w.triggerPipelines()).to.have.length(0);
    const fromBot = w.standIn.model.notes.filter((n) => n.authorId === w.s.bot.id);
    expect(
      fromBot.filter((n) => !n.internal),
      'public notes',
    ).to.have.length(0);
    expect(fromBot, 'internal replies').to.have.length(1);
    expect(fromBot[0]!.body).to.contain('internal note').and.not.contain('secret bug');
    expect(w.standIn.model.quickActions).to.deep.equal([]);
    expect(w.logLines.some((l) => l.includes('"reason":"confidential"'))).to.equal(true);
  });

  it('an internal note that is no command gets no reply (issue 19 §6)', async () => {
    await fetch(
      `${w.standIn.url}/api/v4/projects/${w.s.project.id}/merge_requests/${mr.iid}/notes`,
      {
        method: 'POST',
        headers: { 'PRIVATE-TOKEN': w.s.developerToken.value, 'content-type': 'application/json' },
        body: JSON.stringify({ body: 'just a private remark', internal: true }),
      },
    );
    await settle();
    expect(w.standIn.model.notes.filter((n) => n.authorId === w.s.bot.id)).to.have.length(0);
  });

  it('an internal command from a user without the role (Guest) gets no reply (issue 19 §6)', async () => {
    const guest = w.standIn.model.addToken(w.s.guest.id, { scopes: ['api'] });
    await fetch(
      `${w.standIn.url}/api/v4/projects/${w.s.project.id}/merge_requests/${mr.iid}/notes`,
      {
        method: 'POST',
        headers: { 'PRIVATE-TOKEN': guest.value, 'content-type': 'application/json' },
        body: JSON.stringify({ body: '/agent do it', internal: true }),
      },
    );
    await settle();
    expect(w.standIn.model.notes.filter((n) => n.authorId === w.s.bot.id)).to.have.length(0);
    expect(w.triggerPipelines()).to.have.length(0);
  });
});
