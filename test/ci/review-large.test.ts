import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { Gitlab } from '@gitbeaker/rest';
import type { ChangedFile } from '../../src/core/gitlab-port.ts';
import { toChangedFile } from '../../src/gitlab/mappers.ts';
import { RunResultFile } from '../../src/report/result-file.ts';
import { commitFiles, diffFiles, readBlob } from '../../src/testkit/gitlab-server/git.ts';
import { largeChange, type LargeChange } from '../support/review-fixture.ts';
import {
  ANCHORABLE,
  corpusReplies,
  expectedAfterApply,
  REFUSED,
  reviewCorpus,
} from '../support/review-corpus.ts';
import { JobWorld } from './job-world.ts';

/**
 * `/agent review` of a large merge request as a whole CI job: a synthetic
 * change of 2,013 diff lines across 30 files in the GitLab stand-in, the
 * scripted model answering each review call over HTTP, suggestions applied
 * through GitLab's apply-suggestion API by a developer.
 */
const DISCUSSIONS = '/projects/:id/merge_requests/:iid/discussions';

describe('ci: /agent review of a 2,000-line change across 30 files (issue 30 §4)', function () {
  this.timeout(240_000);
  let world: JobWorld;
  let change: LargeChange;

  async function setUp(extraBase: Record<string, string> = {}) {
    world = await JobWorld.start();
    change = largeChange();
    const { repoDir, defaultBranch } = world.s.project;
    await commitFiles(repoDir, defaultBranch, { ...change.base, ...extraBase });
    await commitFiles(repoDir, world.s.mergeRequest.sourceBranch, change.head, {
      from: `refs/heads/${defaultBranch}`,
    });
  }
  afterEach(() => world?.close());

  const changes = async (): Promise<ChangedFile[]> => {
    const { repoDir, defaultBranch } = world.s.project;
    const files = await diffFiles(
      repoDir,
      `refs/heads/${defaultBranch}`,
      `refs/heads/${world.s.mergeRequest.sourceBranch}`,
    );
    return files.map((f) => toChangedFile(f));
  };
  const threads = () =>
    world.standIn.model.notes.filter((n) => n.body.includes('mr-agent:finding id='));
  const refusals = () =>
    world.standIn.requests.entries.filter(
      (e) => e.method === 'POST' && e.route === DISCUSSIONS && e.status === 400,
    ).length;
  const reportedRefusals = () =>
    world.standIn.model.notes
      .filter((n) => n.body.includes('mr-agent:review-unplaced'))
      .flatMap((n) => n.body.split('\n'))
      .filter((l) => l.includes('GitLab refused the position')).length;

  it('G1 reviewed in several calls within the call size, one verdict and one summary, every finding anchored in its file, the files left out named with their reason', async () => {
    await setUp();
    const diff = await changes();
    expect(diff).to.have.length(30);
    const lines = diff.reduce((n, f) => n + f.additions + f.deletions, 0);
    expect(lines).to.be.within(2_000, 2_100);
    const corpus = reviewCorpus(change);
    const replies = corpusReplies(diff, change, corpus);
    expect(replies.length).to.be.greaterThan(1);

    const job = await world.job({ replies, variables: world.bridgeVariables('review', '') });
    expect(job.code, job.stderr).to.equal(0);
    job.llm.assertAllUsed();

    // file by file: each reviewed file in exactly one call, no call over the size of one
    const sent = job.llm.requests.map((r) => JSON.stringify(r.messages));
    expect(job.llm.requests.map((r) => r.purpose)).to.deep.equal(
      replies.map(() => 'review.merge_request'),
    );
    for (const file of change.reviewable.keys())
      expect(
        sent.filter((s) => s.includes(`diff of ${file} (`)),
        file,
      ).to.have.length(1);
    for (const skipped of Object.keys(change.skipped))
      expect(
        sent.some((s) => s.includes(`diff of ${skipped} (`)),
        skipped,
      ).to.equal(false);
    for (const request of job.llm.requests) {
      const user = request.messages.find((m) => m.role === 'user')!.content as string;
      const diffPart = user.slice(user.indexOf('## Changes'));
      expect(diffPart.length).to.be.at.most(60_000 + 12_000);
    }

    // each anchorable finding is a thread on its own file and line; the renamed file's on its new path
    const positions = world.standIn.model.review.positions;
    for (const c of corpus.filter((x) => ANCHORABLE.includes(x.kind))) {
      const note = threads().find((n) => n.body.includes(c.finding.message))!;
      expect(note, c.finding.message).to.not.equal(undefined);
      const position = positions.get(note.discussionId)!;
      expect(position.newPath).to.equal(c.path);
      expect(position.newLine).to.equal(c.finding.end_line ?? c.finding.line);
      if (c.kind === 'old-path') expect(position.oldPath).to.equal(change.renamed.from);
    }

    // one summary with one verdict, and the files left out with their reason
    const note = world.progressNotes().at(-1)!.body;
    expect(note.match(/Review `[A-Z_]+`/g)).to.deep.equal(['Review `FAIL`']);
    for (const [file, reason] of Object.entries(change.skipped))
      expect(note).to.contain(`\`${file}\` (${reason})`);

    // every refusal of a position is reported
    const refused = corpus.filter((c) => REFUSED.includes(c.kind)).length;
    expect(refusals()).to.equal(refused);
    expect(reportedRefusals()).to.equal(refused);

    // every suggestion on shown lines applies cleanly (bottom-up, so no line moves under another)
    const developer = new Gitlab({ host: world.standIn.url, token: world.s.developerToken.value });
    const suggestions = [...world.standIn.model.review.suggestions].sort(
      (a, b) => a.path.localeCompare(b.path) || b.fromLine - a.fromLine,
    );
    expect(suggestions).to.have.length(corpus.filter((c) => ANCHORABLE.includes(c.kind)).length);
    for (const s of suggestions)
      expect((await developer.Suggestions.edit(s.id)).applied).to.equal(true);
    for (const [file, text] of expectedAfterApply(change, corpus)) {
      const blob = await readBlob(world.s.project.repoDir, world.s.mergeRequest.sourceBranch, file);
      expect(blob?.toString(), file).to.equal(text);
    }
  });

  it('G2 over three re-reviews, one after a push that moves lines down, no finding gets a second thread', async () => {
    await setUp();
    const first = await world.job({
      replies: corpusReplies(await changes(), change, reviewCorpus(change)),
      variables: world.bridgeVariables('review', ''),
    });
    expect(first.code, first.stderr).to.equal(0);
    const posted = threads().length;
    expect(posted).to.be.greaterThan(60);

    // a push adds two lines at the top of one module: its findings' line numbers move
    // (a module without a finding off the diff: new lines at its top would bring that one onto it)
    const moved = 'src/mod_03.js';
    const head = change.reviewable.get(moved)!.lines;
    await commitFiles(world.s.project.repoDir, world.s.mergeRequest.sourceBranch, {
      [moved]: `// reviewed module\n// do not edit by hand\n${head.join('\n')}\n`,
    });
    const shifted = reviewCorpus(change, { [moved]: 2 });
    for (let round = 0; round < 3; round++) {
      const again = await world.job({
        replies: corpusReplies(await changes(), change, shifted),
        variables: world.bridgeVariables('review', ''),
      });
      expect(again.code, again.stderr).to.equal(0);
    }
    const ids = threads().map((n) => /id=([a-f0-9]+)/.exec(n.body)![1]);
    expect(ids.length - new Set(ids).size).to.equal(0);
    expect(ids).to.have.length(posted);
    const note = world.progressNotes().at(-1)!.body;
    expect(note).to.contain(`${posted} findings already have their threads`);
    // every refusal of every review is reported
    expect(reportedRefusals()).to.equal(refusals());
  });

  it('G1 within the token budget: the calls the budget leaves no room for are not made, their files named as not reviewed, and the review posted', async () => {
    // smaller calls, so the change takes several and a budget can cover some of them
    await setUp({ '.mr-agent.yml': 'review:\n  diff_chars_per_call: 20000\n' });
    const diff = await changes();
    const corpus = reviewCorpus(change);
    const replies = corpusReplies(diff, change, corpus, 20_000);
    expect(replies.length).to.be.at.least(4);
    const full = await world.job({ replies, variables: world.bridgeVariables('review', '') });
    expect(full.code, full.stderr).to.equal(0);
    const spent = RunResultFile.parse(
      JSON.parse(readFileSync(path.join(full.dir, '.mr-agent/result.json'), 'utf8')),
    ).tokens.total;

    const limit = Math.floor(spent / 2);
    const job = await world.job({
      replies,
      variables: { ...world.bridgeVariables('review', ''), MR_AGENT_BUDGET_TOKENS: String(limit) },
    });
    expect(job.code, job.stderr).to.equal(0);
    const result = RunResultFile.parse(
      JSON.parse(readFileSync(path.join(job.dir, '.mr-agent/result.json'), 'utf8')),
    );
    expect(result.tokens.total).to.be.at.most(limit);
    const made = job.llm.requests.length;
    expect(made).to.be.at.least(1).and.below(replies.length);
    const note = world.progressNotes().at(-1)!.body;
    expect(note).to.match(/Review `[A-Z_]+`/);
    // the threads of the files this review did not look at are neither counted as gone nor resolved
    expect(note).not.to.contain('left open');
    expect(world.standIn.model.review.resolved.size).to.equal(0);
    const unreviewed = [...change.reviewable.keys()].filter(
      (file) =>
        !job.llm.requests.some((r) => JSON.stringify(r.messages).includes(`diff of ${file} (`)),
    );
    expect(unreviewed.length).to.be.greaterThan(0);
    // the summary names the first 20 files left out and counts the rest
    const left = Object.keys(change.skipped).length + unreviewed.length;
    const named = (note.match(/\(the budget ran out\)/g) ?? []).length;
    expect(named).to.equal(Math.min(unreviewed.length, 20 - Object.keys(change.skipped).length));
    if (left > 20) expect(note).to.contain(`${left - 20} more`);
  });

  it('a change of generated files only asks the model nothing and names each file left out', async () => {
    world = await JobWorld.start();
    await commitFiles(
      world.s.project.repoDir,
      world.s.mergeRequest.sourceBranch,
      {
        'package-lock.json': '{\n  "lockfileVersion": 3\n}\n',
        'dist/app.js': 'export const built = 1;\n',
      },
      { from: `refs/heads/${world.s.project.defaultBranch}` },
    );
    const job = await world.job({ replies: [], variables: world.bridgeVariables('review', '') });
    expect(job.code, job.stderr).to.equal(0);
    expect(job.llm.requests).to.have.length(0);
    const note = world.progressNotes().at(-1)!.body;
    expect(note).to.contain('Review `PASS`: no findings');
    expect(note).to.contain(
      'Not reviewed: `dist/app.js` (build output), `package-lock.json` (lockfile)',
    );
  });

  it('a .gitattributes GitLab will not send marks nothing: its files are reviewed, and the review goes on', async () => {
    world = await JobWorld.start();
    const { repoDir, defaultBranch } = world.s.project;
    await commitFiles(repoDir, defaultBranch, { '.gitattributes': 'src/** linguist-generated\n' });
    await commitFiles(
      repoDir,
      world.s.mergeRequest.sourceBranch,
      { 'src/app.js': 'export const answer = 41;\n' },
      { from: `refs/heads/${defaultBranch}` },
    );
    world.standIn.faults.add({ method: 'GET', path: /gitattributes/, status: 403, times: 10 });
    const job = await world.job({
      replies: [
        {
          purpose: 'review.merge_request',
          contains: ['diff of src/app.js ('],
          content: '{"result": "PASS", "feedback": "", "findings": []}',
        },
      ],
      variables: world.bridgeVariables('review', ''),
    });
    expect(job.code, job.stderr).to.equal(0);
    expect(job.llm.requests).to.have.length(1);
    expect(job.stderr).to.contain('a .gitattributes file could not be read');
    expect(world.progressNotes().at(-1)!.body).to.contain('Review `PASS`');
  });
});
