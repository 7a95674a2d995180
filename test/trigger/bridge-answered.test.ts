import { expect } from 'chai';
import { startBridgeWorld } from './bridge-world.ts';
import { deliver } from './http-client.ts';

/**
 * No command goes unanswered: a flood of instructions on one merge request,
 * spread over bridge replicas, ends with one pipeline and, for every other
 * note, one reply in its own thread (joined, queued or refused with the reason).
 */
describe('D3 every instruction is answered, with any number of bridge replicas', function () {
  this.timeout(30_000);

  it('D3 10 instructions in one second through 2 bridge replicas get 10 answers and start 1 pipeline', async () => {
    const w = await startBridgeWorld({ instances: 2 });
    try {
      const comments = Array.from({ length: 10 }, (_, i) =>
        w.comment(w.s.mergeRequest, w.s.developer, `/agent step ${i + 1}: rename greet${i}`),
      );
      const results = await Promise.all(
        comments.map((c, i) => deliver(w.bridges[i % 2]!.url, c.hook)),
      );
      expect(results.every((r) => r.status >= 200 && r.status < 300)).to.equal(true);
      await w.idle();
      const pipelines = w.triggerPipelines();
      expect(pipelines, 'pipelines started').to.have.length(1);
      const startedNote = Number(pipelines[0]!.variables?.MR_AGENT_NOTE_ID);
      const answers = comments.map(({ note }) => {
        const replies = w.standIn.model.notes.filter(
          (n) =>
            n.discussionId === note.discussionId && n.id !== note.id && n.authorId === w.s.bot.id,
        );
        return {
          note: note.id,
          started: note.id === startedNote,
          replies: replies.map((r) => r.body),
        };
      });
      for (const answer of answers) {
        expect(answer.replies, `note ${answer.note}`).to.have.length(answer.started ? 0 : 1);
      }
      expect(answers.filter((a) => a.started)).to.have.length(1);
    } finally {
      await w.close();
    }
  });

  it('D3 a flood from one author through one replica: every note gets 👀, at most 3 refusal replies a minute, 1 pipeline', async () => {
    const w = await startBridgeWorld();
    try {
      const comments = Array.from({ length: 12 }, (_, i) =>
        w.comment(w.s.mergeRequest, w.s.developer, `/agent step ${i + 1}`),
      );
      await Promise.all(comments.map((c) => deliver(w.bridges[0]!.url, c.hook)));
      await w.idle();
      expect(w.triggerPipelines()).to.have.length(1);
      for (const { note } of comments) {
        const eyes = w.standIn.model.awards.filter(
          (a) => a.noteId === note.id && a.name === 'eyes',
        );
        expect(eyes, `note ${note.id}`).to.have.length(1);
      }
      const refusals = w.standIn.model.notes.filter(
        (n) => n.authorId === w.s.bot.id && n.body.includes('commands waiting on the bridge'),
      );
      expect(refusals.length).to.be.within(1, 3);
      expect(w.bridges[0]!.counters()).to.include({ dropped: 0 });
    } finally {
      await w.close();
    }
  });
});
