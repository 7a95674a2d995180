import { expect } from 'chai';
import { commitFiles, readBlob } from '../../src/testkit/gitlab-server/git.ts';
import type { ReviewFinding } from '../../src/phases/review/inline/findings.ts';
import { hasUnescapedQuickAction } from '../../src/report/markdown.ts';
import type { JobWorld } from './job-world.ts';
import {
  ADD_SUBTRACTS as ADD,
  calcReviewThreads,
  failedReview as review,
  startCalcReviewWorld,
} from '../support/calc-review-world.ts';
import { BUGGY_CALC } from '../support/review-fixture.ts';

/**
 * `/agent review` as a whole CI job (`mr-agent ci --step all`): the bridge's
 * variables, the GitLab stand-in holding the merge request and its diff
 * versions, the scripted model answering the review over HTTP. Findings
 * become threads on changed lines with suggestions that apply; a re-review
 * after a fix posts no duplicate and resolves the fixed thread; a position
 * GitLab refuses is reported in the progress note.
 */

const MUL: ReviewFinding = {
  file: 'src/calc.js',
  line: 5,
  end_line: 7,
  severity: 'major',
  message: 'mul adds.',
  suggestion: 'export function mul(a, b) {\n  return a * b;\n}',
};
const OFF: ReviewFinding = {
  file: 'src/calc.js',
  line: 40,
  severity: 'minor',
  message: 'Beyond the end of the file.',
};

describe('ci: /agent review as a job (stand-in + scripted model over HTTP; issue 30)', function () {
  this.timeout(120_000);
  let world: JobWorld;
  beforeEach(async () => {
    world = await startCalcReviewWorld();
  });
  afterEach(() => world.close());

  const threads = () =>
    world.standIn.model.notes.filter((n) => n.body.includes('mr-agent:finding id='));
  const { developer } = calcReviewThreads(() => world);

  it('G1 threads on the changed lines, a suggestion that applies, a refused position in the note; nothing pushed', async () => {
    // a token committed by mistake is part of the change, but never of a model request
    await commitFiles(world.s.project.repoDir, world.s.mergeRequest.sourceBranch, {
      'src/config.js': `export const token = '${world.s.botToken.value}';\n`,
    });
    const head = world.branchHead();
    const job = await world.job({
      replies: [review([ADD, MUL, OFF])],
      variables: world.bridgeVariables('review', 'arithmetic /close'),
    });
    expect(job.code, job.stderr).to.equal(0);
    // the model saw the diff with new-side line numbers and the focus, both fenced as data
    const sent = JSON.stringify(job.llm.requests[0]!.messages);
    expect(job.llm.requests[0]!.purpose).to.equal('review.merge_request');
    expect(sent).to.contain('diff of src/calc.js (untrusted data');
    expect(sent).to.contain('    2 +   return a - b;');
    expect(sent).to.contain('focus asked for (untrusted data').and.contain('arithmetic /close');
    expect(sent).to.contain('diff of src/config.js');
    expect(JSON.stringify(job.llm.requests)).not.to.contain(world.s.botToken.value);

    expect(threads()).to.have.length(2);
    for (const note of threads()) {
      const position = world.standIn.model.review.positions.get(note.discussionId)!;
      expect(position.newPath).to.equal('src/calc.js');
      expect(hasUnescapedQuickAction(note.body)).to.equal(false);
    }
    const mul = threads().find((n) => n.body.includes('mul adds'))!;
    expect(world.standIn.model.review.positions.get(mul.discussionId)!.lineRange).to.not.equal(
      undefined,
    );
    expect(world.standIn.model.quickActions).to.deep.equal([]);

    // the run itself changed nothing on the branch
    expect(world.branchHead()).to.equal(head);
    const note = world.progressNotes().at(-1)!.body;
    expect(note).to.contain('Review `FAIL`').and.contain('1 Critical').and.contain('1 Major');
    expect(note).to.contain('1 could not be placed on the diff');
    // the note's next step is the threads, not a working tree to inspect
    expect(note).to.contain('read the review threads').and.contain('`/agent review`');
    expect(note).not.to.contain('git diff');
    const unplaced = world.standIn.model.notes.find((n) =>
      n.body.includes('mr-agent:review-unplaced'),
    )!;
    expect(unplaced.body).to.contain('src/calc.js:40').and.contain('400');
    expect(note).to.contain(`#note_${unplaced.id}`);

    // every suggestion applies through GitLab's apply API
    for (const s of world.standIn.model.review.suggestions)
      expect((await developer().Suggestions.edit(s.id)).applied).to.equal(true);
    const file = (await readBlob(
      world.s.project.repoDir,
      world.s.mergeRequest.sourceBranch,
      'src/calc.js',
    ))!.toString();
    expect(file).to.contain('return a + b;').and.contain('return a * b;');
  });

  it('G2 a re-review after a push that fixes one finding posts no duplicate and answers and resolves the fixed thread', async () => {
    const first = await world.job({
      replies: [review([ADD, MUL])],
      variables: world.bridgeVariables('review', ''),
    });
    expect(first.code, first.stderr).to.equal(0);
    expect(threads()).to.have.length(2);
    // a push that fixes `add subtracts` (applying its suggestion would resolve the thread by itself)
    const add = threads().find((n) => n.body.includes('add subtracts'))!;
    await commitFiles(world.s.project.repoDir, world.s.mergeRequest.sourceBranch, {
      'src/calc.js': BUGGY_CALC.replace('  return a - b;', '  return a + b;'),
    });

    for (let round = 0; round < 2; round++) {
      const again = await world.job({
        replies: [review([MUL])],
        variables: world.bridgeVariables('review', ''),
      });
      expect(again.code, again.stderr).to.equal(0);
    }
    const ids = threads().map((n) => /id=([a-f0-9]+)/.exec(n.body)![1]);
    expect(ids).to.have.length(2);
    expect(new Set(ids).size).to.equal(2);
    const replies = world.standIn.model.notes.filter((n) => n.discussionId === add.discussionId);
    expect(replies).to.have.length(2);
    expect(replies[1]!.body).to.contain('resolving the thread');
    expect(world.standIn.model.review.resolved.has(add.discussionId)).to.equal(true);
    const mul = threads().find((n) => n.body.includes('mul adds'))!;
    expect(world.standIn.model.review.resolved.has(mul.discussionId)).to.equal(false);
  });

  it('`/agent review` on an issue is refused with a reply saying it reviews a merge request', async () => {
    const note = world.standIn.model.addNote({
      on: world.s.issue,
      body: '/agent review',
      authorId: world.s.developer.id,
    });
    const job = await world.job({
      replies: [],
      variables: {
        MR_AGENT_SOURCE: 'note',
        MR_AGENT_COMMAND: 'review',
        MR_AGENT_TASK: '',
        MR_AGENT_NOTE_ID: String(note.id),
        MR_AGENT_ISSUE_IID: String(world.s.issue.iid),
        MR_AGENT_TRIGGERED_BY: String(world.s.developer.id),
      },
    });
    expect(job.code).to.equal(2);
    expect(job.llm.requests).to.have.length(0);
    const reply = world.standIn.model.notes.find(
      (n) => n.discussionId === note.discussionId && n.authorId === world.s.bot.id,
    );
    expect(reply?.body).to.contain('reviews a merge request');
  });
});
