import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  seedScenario,
  startGitLabStandIn,
  type GitLabStandIn,
  type Scenario,
} from '../../src/testkit/gitlab-server/index.ts';
import { parseNoteEvent } from '../../src/commands/note-event.ts';
import { decideNote } from '../../src/commands/note-rules.ts';
import { interpretTriggerPayload } from '../../src/commands/trigger-payload.ts';

interface Received {
  event: string | undefined;
  body: string;
}

/**
 * The stand-in's webhooks mark confidential notes as GitLab's
 * webhook_events.md does (header `Confidential Note Hook`, body `event_type:
 * confidential_note`), and the comment rules refuse each of those signals.
 */
describe('M5 confidential notes from the GitLab stand-in start nothing public', function () {
  this.timeout(20_000);
  let standIn: GitLabStandIn;
  let s: Scenario;
  let receiver: Server;
  let received: Received[];
  const rules = { prefix: '/agent' };

  beforeEach(async () => {
    standIn = await startGitLabStandIn();
    s = await seedScenario(standIn.model);
    received = [];
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        const event = req.headers['x-gitlab-event'];
        received.push({ event: Array.isArray(event) ? event[0] : event, body });
        res.end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    standIn.hooks.add(s.project, `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`);
  });
  afterEach(async () => {
    await standIn.close();
    receiver.close();
  });

  function decided(delivery: Received) {
    const parsed = parseNoteEvent(JSON.parse(delivery.body));
    if (!parsed.ok) throw new Error(parsed.detail);
    return decideNote(parsed.event, rules, { hookEvent: delivery.event });
  }

  it('M5 a comment on a confidential issue is a `Confidential Note Hook` with event_type confidential_note; it is private and TRIGGER_PAYLOAD skips it', async () => {
    const issue = standIn.model.createIssue({
      project: s.project,
      title: 'Security: token leak',
      authorId: s.maintainer.id,
      confidential: true,
    });
    standIn.model.addNote({ on: issue, body: '/agent fix the leak', authorId: s.developer.id });
    await standIn.hooks.idle();

    expect(received).to.have.length(1);
    expect(received[0]!.event).to.equal('Confidential Note Hook');
    expect(JSON.parse(received[0]!.body)).to.deep.include({ event_type: 'confidential_note' });
    expect(decided(received[0]!).kind).to.equal('private');
    expect(interpretTriggerPayload(received[0]!.body, rules)).to.deep.include({
      kind: 'skip',
      reason: 'confidential',
    });
  });

  it('M5 an internal note on a merge request is a `Confidential Note Hook`; a public one is a `Note Hook` and a command', async () => {
    standIn.model.addNote({
      on: s.mergeRequest,
      body: '/agent fix it',
      authorId: s.developer.id,
      internal: true,
    });
    standIn.model.addNote({ on: s.mergeRequest, body: '/agent fix it', authorId: s.developer.id });
    await standIn.hooks.idle();

    expect(received.map((r) => r.event)).to.deep.equal(['Confidential Note Hook', 'Note Hook']);
    expect(JSON.parse(received[0]!.body)).to.deep.include({ event_type: 'confidential_note' });
    expect(decided(received[0]!).kind).to.equal('private');
    expect(decided(received[1]!).kind).to.equal('command');
  });
});
