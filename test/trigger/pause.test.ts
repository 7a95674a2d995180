import { expect } from 'chai';
import { pauseAwarded, runningProgressNote } from '../../src/commands/pause.ts';

const BOT = 99;
const note = (id: number, body: string, author = BOT) => ({
  id,
  body,
  author: { id: author, username: 'u', name: 'u', bot: false },
  system: false,
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-01T00:00:00Z',
});

describe('seed 002 pause: which ⏸ counts and which note it goes on', () => {
  it("seed 002 the agent's own ⏸ or a commanding member's asks for a pause; a Guest's is only a reaction", async () => {
    const roles = new Map([
      [11, 30],
      [12, 10],
    ]);
    const who = { selfId: BOT, mayCommand: async (id: number) => (roles.get(id) ?? 0) >= 30 };
    const award = (name: string, id: number) => ({ name, user: { id } });
    expect(await pauseAwarded([award('pause_button', BOT)], who)).to.equal(true);
    expect(await pauseAwarded([award('pause_button', 11)], who)).to.equal(true);
    expect(await pauseAwarded([award('pause_button', 12)], who)).to.equal(false);
    expect(await pauseAwarded([award('thumbsup', BOT)], who)).to.equal(false);
  });

  it('seed 002 only the newest progress note of the agent, while it says running, is the one to pause', () => {
    const running = note(1, '<!-- mr-agent:progress task=a state=running -->');
    const done = note(2, '<!-- mr-agent:progress task=b state=complete -->');
    const copied = note(3, '<!-- mr-agent:progress task=c state=running -->', 11);
    expect(runningProgressNote([running], BOT)?.id).to.equal(1);
    expect(runningProgressNote([running, done], BOT)).to.equal(undefined);
    expect(runningProgressNote([running, copied], BOT)?.id).to.equal(1);
  });
});
