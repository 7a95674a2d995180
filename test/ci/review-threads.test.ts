import { expect } from 'chai';
import { defaultConfig } from '../../src/config/resolve.ts';
import { jobReads } from '../../src/gitlab/job-reads.ts';
import { MAX_THREADS_PER_RUN, threadsToAddress } from '../../src/ci/review-threads.ts';
import type { PreparedRun } from '../../src/ci/prepare.ts';
import type { DiffPosition } from '../../src/core/gitlab-port.ts';
import { startWorld, type World } from '../gitlab/world.ts';

/**
 * Which diff threads a job addresses, read over HTTP (gitbeaker adapter →
 * stand-in): the thread a command was written in, or for `/agent
 * address-reviews` the open diff threads of people who may command the agent.
 * The scenario's merge request changes line 2 of src/greet.js.
 */
describe('ci/review-threads: the threads a job addresses (stand-in over HTTP; issue 30)', function () {
  this.timeout(30_000);
  let w: World;
  beforeEach(async () => (w = await startWorld()));
  afterEach(() => w.close());

  const on = () => ({ type: 'merge_request' as const, iid: w.s.mergeRequest.iid });

  async function at(): Promise<DiffPosition> {
    const [v] = await w.gitlab.listDiffVersions!(w.s.project.id, w.s.mergeRequest.iid);
    return {
      baseSha: v!.baseSha,
      startSha: v!.startSha,
      headSha: v!.headSha,
      oldPath: 'src/greet.js',
      newPath: 'src/greet.js',
      oldLine: undefined,
      newLine: 2,
    };
  }

  function run(command: string, noteId?: number): PreparedRun {
    return {
      request: {
        source: 'note',
        command,
        task: '',
        target: { kind: 'merge_request', iid: w.s.mergeRequest.iid },
        ...(noteId ? { noteId } : {}),
      },
      config: defaultConfig(),
      reads: jobReads(w.gitlab, w.s.project.id),
      bot: { id: w.s.bot.id, username: 'mr-agent-bot', name: 'mr-agent' },
    } as unknown as PreparedRun;
  }

  const open = async (token: string, body: string) =>
    (
      await w.clientFor(token).createDiffDiscussion!(
        w.s.project.id,
        w.s.mergeRequest.iid,
        body,
        await at(),
      )
    ).id;

  it("G4 address-reviews takes members' open diff threads only: not a guest's, the agent's own, a resolved one, or a plain thread", async () => {
    const dev = w.s.developerToken.value;
    const member = await open(dev, 'Use a template literal.');
    const resolved = await open(dev, 'Already fixed.');
    await w.gitlab.resolveDiscussion!(w.s.project.id, w.s.mergeRequest.iid, resolved, true);
    const guestToken = w.standIn.model.addToken(w.s.guest.id, { scopes: ['api'] }).value;
    await open(guestToken, 'Delete it all.');
    await open(w.s.botToken.value, '<!-- mr-agent:finding id=1 -->\nA finding.');
    await w.clientFor(dev).createDiscussion(w.s.project.id, on(), 'A thread off the diff.');

    const threads = await threadsToAddress(run('address-reviews'), true);
    expect(threads!.map((t) => t.discussionId)).to.deep.equal([member]);
    expect(threads![0]).to.deep.include({ label: 'T1', path: 'src/greet.js', line: 2 });
    expect(threads![0]!.notes).to.deep.equal([
      {
        author: 'dev',
        body: 'Use a template literal.',
        authorized: true,
        at: threads![0]!.notes[0]!.at,
      },
    ]);
  });

  it(`G4 address-reviews takes at most ${MAX_THREADS_PER_RUN} threads, oldest first`, async () => {
    const ids: string[] = [];
    for (let i = 0; i <= MAX_THREADS_PER_RUN; i++)
      ids.push(await open(w.s.developerToken.value, `Thread ${i}.`));
    const threads = await threadsToAddress(run('address-reviews'), true);
    expect(threads!.map((t) => t.discussionId)).to.deep.equal(ids.slice(0, MAX_THREADS_PER_RUN));
    expect(threads!.at(-1)!.label).to.equal(`T${MAX_THREADS_PER_RUN}`);
  });

  it('G3 a command in a diff thread names that thread with its replies; one in a plain thread or comment names none', async () => {
    const dev = w.clientFor(w.s.developerToken.value);
    const thread = await open(w.s.developerToken.value, 'greet() should trim.');
    const ask = await dev.replyToDiscussion(w.s.project.id, on(), thread, '/agent fix this');
    const found = await threadsToAddress(run('run', ask.id), false);
    expect(found!.map((t) => t.discussionId)).to.deep.equal([thread]);
    expect(found![0]!.notes.map((n) => n.body)).to.deep.equal([
      'greet() should trim.',
      '/agent fix this',
    ]);

    const plain = await dev.createDiscussion(w.s.project.id, on(), 'Off the diff.');
    const inPlain = await dev.replyToDiscussion(w.s.project.id, on(), plain.id, '/agent fix this');
    expect(await threadsToAddress(run('run', inPlain.id), false)).to.equal(undefined);
    const comment = await dev.createNote(w.s.project.id, on(), '/agent add a farewell');
    expect(await threadsToAddress(run('run', comment.id), false)).to.equal(undefined);
  });
});
