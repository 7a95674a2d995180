import { expect } from 'chai';
import { runDemo } from '../../src/demo/run-demo.ts';
import { hasUnescapedQuickAction } from '../../src/report/markdown.ts';

/**
 * `mr-agent demo --scene review`, offline against the stand-ins: `/agent
 * review` posts the findings as diff threads, then @dana's `/agent fix this`
 * in the first thread goes through the webhook bridge to a second job, which
 * pushes the fix, answers in the thread with the commit and resolves it.
 */
describe('demo: the review scene (issue 30)', function () {
  this.timeout(240_000);

  it('G3 `/agent review`, then `/agent fix this` in its first thread: the thread answered with the commit and resolved, the other left open', async () => {
    let printed = '';
    const result = await runDemo({
      out: { write: (text: string) => ((printed += text), true) },
      live: false,
      color: false,
      hostEnv: { PATH: process.env.PATH, HOME: process.env.HOME },
      scene: 'review',
    });
    expect(result.reviewJob?.outcome.reviewOnly, printed).to.equal(true);
    expect(result.job.outcome.state, printed).to.equal('COMPLETE');
    const commit = result.job.outcome.delivery?.commit;
    expect(commit, printed).to.be.a('string');
    const [fixed, other] = result.threads!;
    expect(fixed!.where).to.equal('src/slugify.js:11');
    expect(fixed!.notes.map((n) => n.author)).to.deep.equal([
      'mr-agent-bot',
      'dana',
      'mr-agent-bot',
    ]);
    expect(fixed!.notes[1]!.body).to.equal('/agent fix this');
    expect(fixed!.notes[2]!.body).to.contain(`/-/commit/${commit}`);
    expect(fixed!.resolved).to.equal(true);
    expect(other!.notes).to.have.length(1);
    expect(other!.resolved).to.equal(false);
    for (const thread of result.threads!)
      for (const note of thread.notes.filter((n) => n.author === 'mr-agent-bot'))
        expect(hasUnescapedQuickAction(note.body)).to.equal(false);
    expect(printed).to.contain('Reply: @dana answers the thread on src/slugify.js:11');
    expect(printed).to.contain('src/slugify.js:11 — resolved');
  });
});
