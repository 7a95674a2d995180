import { expect } from 'chai';
import { createMemoryLogger } from '../../src/log/logger.ts';
import { Redactor } from '../../src/log/redact.ts';
import { RefusalDesk, type Refusal } from '../../src/trigger/refusals.ts';
import type { CommandRequest } from '../../src/commands/note-rules.ts';

function request(noteId: number, userId = 7, iid = 1): CommandRequest {
  return {
    command: 'run',
    instruction: `step ${noteId}`,
    projectId: 1,
    noteId,
    discussionId: `d${noteId}`,
    user: { id: userId, username: `u${userId}` },
    target: { kind: 'merge_request', iid, sourceBranch: 'f', fork: false },
  } as CommandRequest;
}

/** A flood of refusals answers every command, but with few replies per author and target. */
describe('D3 the bridge refuses what its queue cannot take, in bounded replies', () => {
  it('D3 past the replies of a window the 👀 answers, and one reply at its end names how many', async () => {
    const refused: Array<{ noteId: number; refusal: Refusal }> = [];
    const summaries: Array<{ noteId: number; count: number }> = [];
    const desk = new RefusalDesk({
      logger: createMemoryLogger({ redactor: new Redactor(), format: 'json' }).logger,
      repliesPerWindow: 2,
      windowMs: 60,
      limit: 100,
      maxBuckets: 10,
      refuse: async (r, refusal) => refused.push({ noteId: r.noteId, refusal }),
      summarize: async (r, count) => {
        summaries.push({ noteId: r.noteId, count });
      },
    });
    const reason = { kind: 'author-busy' as const, waiting: 3 };
    for (let id = 1; id <= 5; id++) expect(desk.refuse(request(id), reason)).to.equal(true);
    // another author on the same MR has replies of their own
    expect(desk.refuse(request(6, 8), reason)).to.equal(true);
    await desk.idle();
    expect(
      [...refused].sort((a, b) => a.noteId - b.noteId).map((r) => [r.noteId, r.refusal.silent]),
    ).to.deep.equal([
      [1, false],
      [2, false],
      [3, true],
      [4, true],
      [5, true],
      [6, false],
    ]);
    await new Promise((r) => setTimeout(r, 120));
    await desk.idle();
    expect(summaries).to.deep.equal([{ noteId: 5, count: 3 }]);
    // a new window: replies again, and nothing left to summarise
    desk.refuse(request(9), reason);
    await desk.idle();
    expect(refused.at(-1)).to.deep.include({ noteId: 9 });
    expect(refused.at(-1)!.refusal).to.include({ silent: false, more: 0 });
    desk.close();
  });

  it('D3 too many authors at once: the extra refusal is only logged (bounded memory)', () => {
    const desk = new RefusalDesk({
      logger: createMemoryLogger({ redactor: new Redactor(), format: 'json' }).logger,
      repliesPerWindow: 1,
      windowMs: 60_000,
      limit: 100,
      maxBuckets: 2,
      refuse: () => new Promise(() => {}),
      summarize: async () => {},
    });
    const reason = { kind: 'busy' as const, waiting: 9 };
    expect([1, 2, 3].map((u) => desk.refuse(request(u, u), reason))).to.deep.equal([
      true,
      true,
      false,
    ]);
    desk.close();
  });
});
