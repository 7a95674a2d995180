import { expect } from 'chai';
import { FakeClock } from '../../src/core/clock.ts';
import { createGitLabClient } from '../../src/gitlab/gitbeaker-adapter.ts';
import { gitlabConversation } from '../../src/ci/conversation.ts';
import { renderMarker } from '../../src/report/marker.ts';
import { createMemoryLogger } from '../../src/log/logger.ts';
import { Redactor } from '../../src/log/redact.ts';
import {
  seedScenario,
  startGitLabStandIn,
  type GitLabStandIn,
  type Scenario,
} from '../../src/testkit/gitlab-server/index.ts';

/**
 * The window at a run's end: an instruction the bridge told "joined" after
 * the run's last read, or a comment made then, is answered once the final
 * note is up, instead of never (against the GitLab stand-in over HTTP).
 */
describe('D4 what is said after the run last listened is answered at its end', function () {
  this.timeout(10_000);
  let standIn: GitLabStandIn;
  let s: Scenario;

  beforeEach(async () => {
    standIn = await startGitLabStandIn();
    s = await seedScenario(standIn.model);
  });
  afterEach(() => standIn.close());

  function conversation(
    locked: string[],
    language?: Parameters<typeof gitlabConversation>[0]['language'],
  ) {
    const gitlab = createGitLabClient({
      url: standIn.url,
      token: s.botToken.value,
      clock: new FakeClock(),
      retry: { timeoutMs: 5000 },
    });
    const watermark = standIn.model.addNote({
      on: s.mergeRequest,
      body: 'earlier',
      authorId: s.developer.id,
    });
    return gitlabConversation({
      gitlab,
      project: s.project.id,
      on: { type: 'merge_request', iid: s.mergeRequest.iid },
      selfId: s.bot.id,
      minAccessLevel: 30,
      accessLevel: (userId) => gitlab.accessLevel(s.project.id, userId),
      seenUpTo: async () => watermark.id,
      prefix: '/agent',
      clock: new FakeClock(),
      redactor: new Redactor(),
      logger: createMemoryLogger({ level: 'info', redactor: new Redactor(), format: 'json' })
        .logger,
      pipelineId: '777',
      ...(language ? { language } : {}),
      underLock: async (work) => {
        locked.push('in');
        const done = await work();
        locked.push('out');
        return done;
      },
    });
  }

  const joined = (pipeline: string) =>
    `${renderMarker({ kind: 'reply', pipeline, state: 'joined' })}\nJoined the running agent run`;
  const repliesIn = (discussionId: string, after: number) =>
    standIn.model.notes.filter(
      (n) => n.discussionId === discussionId && n.id > after && n.authorId === s.bot.id,
    );

  it('D4 a "joined" instruction and a comment made after the last read get "the run has ended"; others are the bridge\'s', async () => {
    const locked: string[] = [];
    const port = conversation(locked);
    const add = (body: string, authorId = s.developer.id) =>
      standIn.model.addNote({ on: s.mergeRequest, body, authorId });
    const reply = (to: { discussionId: string }, body: string) =>
      standIn.model.addNote({
        on: s.mergeRequest,
        body,
        authorId: s.bot.id,
        discussionId: to.discussionId,
      });
    const heardLate = add('/agent also rename greet');
    reply(heardLate, joined('777'));
    const bridgesOwn = add('/agent now add docs'); // the bridge starts a follow-up for it
    const otherRun = add('/agent also X');
    reply(otherRun, joined('555'));
    const plain = add('また README も直してください');
    const guest = add('delete everything', s.guest.id);
    const mark = Math.max(...standIn.model.notes.map((n) => n.id));

    expect(await port.close!()).to.equal(2);
    expect(locked).to.deep.equal(['in', 'out']);
    expect(
      repliesIn(heardLate.discussionId, mark)
        .map((n) => n.body)
        .join(),
    ).to.include('The run has ended before it could read this');
    expect(
      repliesIn(plain.discussionId, mark)
        .map((n) => n.body)
        .join(),
    ).to.include('実行が終了しました');
    for (const untouched of [bridgesOwn, otherRun, guest]) {
      expect(repliesIn(untouched.discussionId, mark), untouched.body).to.deep.equal([]);
    }
    expect(await port.close!(), 'a second close answers nothing again').to.equal(0);
  });

  it("O11 the late answer keeps a fixed `notes.language`; with `auto`, a comment without words gets the run's language", async () => {
    const add = (body: string) =>
      standIn.model.addNote({ on: s.mergeRequest, body, authorId: s.developer.id });
    const fixed = conversation([], { setting: 'en', run: 'en' });
    const japanese = add('また README も直してください');
    let mark = Math.max(...standIn.model.notes.map((n) => n.id));
    expect(await fixed.close!()).to.equal(1);
    expect(repliesIn(japanese.discussionId, mark)[0]?.body).to.include(
      'The run has ended before it could read this',
    );

    const auto = conversation([], { setting: 'auto', run: 'ja' });
    const wordless = add('👍 `npm test`');
    const english = add('please also fix the README');
    mark = Math.max(...standIn.model.notes.map((n) => n.id));
    expect(await auto.close!()).to.equal(2);
    expect(repliesIn(wordless.discussionId, mark)[0]?.body).to.include('実行が終了しました');
    expect(repliesIn(english.discussionId, mark)[0]?.body).to.include(
      'The run has ended before it could read this',
    );
  });
});
