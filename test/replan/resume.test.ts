import { expect } from 'chai';
import type { Discussion, Note } from '../../src/core/gitlab-port.ts';
import { pausedQuestionFor, pausedQuestionIn } from '../../src/phases/replan/resume.ts';

const bot = { id: 1, username: 'mr-agent-bot', name: 'mr-agent', bot: true };
const dev = { id: 7, username: 'dev', name: 'Dana', bot: false };

function note(id: number, author: Note['author'], body: string, system = false): Note {
  return { id, author, body, system, createdAt: '', updatedAt: '' };
}

const question = (state: string) =>
  note(10, bot, `<!-- mr-agent:clarification job=5 task=task-1 state=${state} -->\n## ❓ …`);

function thread(...notes: Note[]): Discussion {
  return { id: 'd1', individualNote: false, notes };
}

describe('replan: finding the paused question a reply answers (F4 resume)', () => {
  it('a person’s reply below an awaiting_answer question resumes it', () => {
    const found = pausedQuestionFor(
      thread(question('awaiting_answer'), note(11, dev, 'main')),
      11,
      1,
    );
    expect(found).to.deep.include({ discussionId: 'd1', noteId: 10 });
    expect(found!.marker).to.include({ task: 'task-1', job: '5' });
  });

  const cases: Array<[string, Discussion, number]> = [
    ['a question the run is still waiting on', thread(question('waiting'), note(11, dev, 'x')), 11],
    ['an answered question', thread(question('answered'), note(11, dev, 'x')), 11],
    ['the question itself', thread(question('awaiting_answer')), 10],
    ['the agent’s own reply', thread(question('awaiting_answer'), note(11, bot, 'ok')), 11],
    [
      'a note carrying the agent marker',
      thread(question('awaiting_answer'), note(11, dev, '<!-- mr-agent:reply task=t -->\nhi')),
      11,
    ],
    ['a system note', thread(question('awaiting_answer'), note(11, dev, 'changed', true)), 11],
    [
      'a thread someone else started',
      thread(note(10, dev, question('awaiting_answer').body), note(11, dev, 'x')),
      11,
    ],
    ['a note not in the thread', thread(question('awaiting_answer')), 99],
    [
      'a question a resumed run acknowledged (✅ Answered, marker state answered)',
      thread(
        question('awaiting_answer'),
        note(11, dev, 'main'),
        note(12, bot, '<!-- mr-agent:clarification job=6 task=task-1 state=answered -->\n✅'),
        note(13, dev, 'thanks'),
      ),
      13,
    ],
  ];
  for (const [what, discussion, noteId] of cases) {
    it(`${what} does not`, () => {
      expect(pausedQuestionFor(discussion, noteId, 1)).to.equal(undefined);
    });
  }

  it('an acknowledgement by someone else does not settle the question', () => {
    const forged = note(12, dev, '<!-- mr-agent:clarification state=answered -->\nok');
    const found = pausedQuestionFor(
      thread(question('awaiting_answer'), forged, note(13, dev, 'x')),
      13,
      1,
    );
    expect(found).to.not.equal(undefined);
  });

  it('without the agent’s user id the marker alone decides', () => {
    expect(pausedQuestionIn(thread(question('awaiting_answer')))).to.not.equal(undefined);
  });
});
