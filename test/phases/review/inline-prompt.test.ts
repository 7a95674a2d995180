import { expect } from 'chai';
import type { ChangedFile } from '../../../src/core/gitlab-port.ts';
import { promptLibrary } from '../../../src/llm/prompt-files.ts';
import {
  inlineReviewMessages,
  numberedDiff,
  planReview,
  REVIEW_DIFF_CHARS,
} from '../../../src/phases/review/inline/prompt.ts';

/** The reviewer's view of a merge request's change (`/agent review`). */
const file = (newPath: string, diff: string, status: ChangedFile['status'] = 'modified') => ({
  oldPath: newPath,
  newPath,
  status,
  additions: 1,
  deletions: 1,
  diff,
});

describe("review: the reviewer's numbered diff (issue 30)", () => {
  it('G1 numbers added and unchanged lines by the new version; removed lines carry no number', () => {
    const diff = '@@ -3,3 +3,3 @@\n keep\n-old\n+new\n tail\n\\ No newline at end of file';
    expect(numberedDiff(diff).split('\n')).to.deep.equal([
      '@@ -3,3 +3,3 @@',
      '    3   keep',
      '      - old',
      '    4 + new',
      '    5   tail',
    ]);
  });

  it('skips deleted, generated and binary files with the reason, and fences what it shows', () => {
    const plan = planReview([
      file('src/a.js', '@@ -1 +1 @@\n-a\n+```\n'),
      file('src/gone.js', '@@ -1 +0,0 @@\n-x\n', 'deleted'),
      file('package-lock.json', '@@ -1 +1 @@\n-1\n+2\n'),
      file('dist/app.js', '@@ -1 +1 @@\n-1\n+2\n'),
      file('logo.png', ''),
    ]);
    expect(plan.reviewed).to.deep.equal(['src/a.js']);
    expect(plan.skipped).to.deep.equal([
      { path: 'src/gone.js', reason: 'deleted' },
      { path: 'package-lock.json', reason: 'lockfile' },
      { path: 'dist/app.js', reason: 'build' },
      { path: 'logo.png', reason: 'binary' },
    ]);
    // the fence is longer than the backticks inside, so the diff cannot close it
    expect(plan.groups).to.have.length(1);
    expect(plan.groups[0]!.text).to.contain('diff of src/a.js (untrusted data').and.contain('````');
  });

  it('G1 a change over the size of one call is reviewed in several, every file in one of them, none over the limit', () => {
    const big = `@@ -1 +1,2000 @@\n${'+x\n'.repeat(2000)}`;
    const files = Array.from({ length: 30 }, (_, i) => file(`src/f${i}.js`, big));
    const plan = planReview(files);
    expect(plan.skipped).to.deep.equal([]);
    expect(plan.groups.length).to.be.greaterThan(1);
    for (const group of plan.groups) expect(group.text.length).to.be.at.most(REVIEW_DIFF_CHARS);
    expect(new Set(plan.groups.flatMap((g) => g.paths))).to.have.property('size', 30);
  });

  it('the calls of a large review are about evenly filled, no more of them than the limit needs', () => {
    const diff = `@@ -1 +1,100 @@\n${'+a line of code\n'.repeat(100)}`;
    const files = Array.from({ length: 9 }, (_, i) => file(`src/g${i}.js`, diff));
    const plan = planReview(files, { charsPerCall: 20_000 });
    const sizes = plan.groups.map((g) => g.text.length);
    const total = sizes.reduce((a, b) => a + b, 0);
    expect(plan.groups).to.have.length(Math.ceil(total / 20_000));
    expect(Math.min(...sizes)).to.be.greaterThan(Math.max(...sizes) / 2);
  });

  it('a file longer than one call is shown in parts, cut at a hunk where it can, every line once', () => {
    const hunk = (start: number) =>
      `@@ -${start},0 +${start},300 @@\n${Array.from({ length: 300 }, (_, i) => `+line ${start + i}`).join('\n')}`;
    const diff = [hunk(1), hunk(1001), hunk(2001)].join('\n');
    const plan = planReview([file('src/long.js', diff)], { charsPerCall: 8_000 });
    expect(plan.groups.length).to.be.greaterThan(1);
    const text = plan.groups.map((g) => g.text).join('\n');
    for (const n of [1, 300, 1001, 1300, 2001, 2300]) expect(text).to.contain(` + line ${n}\n`);
    expect(plan.groups[0]!.text).to.contain('diff of src/long.js, part 1 of');
    // the second part starts at a hunk's header, not in the middle of a hunk
    expect(plan.groups[1]!.text).to.match(/`{3,}text\n@@ -\d+,0 \+\d+,300 @@\n/);
    for (const group of plan.groups) {
      expect(group.paths).to.deep.equal(['src/long.js']);
      expect(group.text.length).to.be.at.most(8_000);
    }
  });

  it('every part of a large review is told it is one part and which files the change holds; the skipped files with the reason', async () => {
    const big = `@@ -1 +1,400 @@\n${'+some code here\n'.repeat(400)}`;
    const plan = planReview(
      [file('src/a.js', big), file('src/b.js', big), file('yarn.lock', '@@ -1 +1 @@\n-1\n+2\n')],
      { charsPerCall: 10_000 },
    );
    expect(plan.groups).to.have.length(2);
    const messages = await inlineReviewMessages(promptLibrary(), {
      title: 't',
      description: 'd',
      focus: '',
      plan,
      group: 1,
    });
    const user = messages[1]!.content!;
    expect(user).to.contain('reviewed in 2 parts').and.contain('this is part 2');
    expect(user).to.contain('src/a.js\nsrc/b.js');
    expect(user).to.contain('yarn.lock (generated: a lockfile)');
    expect(user).to.contain('diff of src/b.js').and.not.contain('diff of src/a.js');
  });
});
