import { expect } from 'chai';
import type { ChangedFile } from '../../../src/core/gitlab-port.ts';
import {
  numberedDiff,
  REVIEW_DIFF_CHARS,
  reviewedChange,
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
    const change = reviewedChange([
      file('src/a.js', '@@ -1 +1 @@\n-a\n+```\n'),
      file('src/gone.js', '@@ -1 +0,0 @@\n-x\n', 'deleted'),
      file('package-lock.json', '@@ -1 +1 @@\n-1\n+2\n'),
      file('dist/app.js', '@@ -1 +1 @@\n-1\n+2\n'),
      file('logo.png', ''),
    ]);
    expect(change.shown).to.equal(1);
    expect(change.skipped).to.deep.equal([
      { path: 'src/gone.js', reason: 'deleted' },
      { path: 'package-lock.json', reason: 'generated' },
      { path: 'dist/app.js', reason: 'generated' },
      { path: 'logo.png', reason: 'binary or too large for a text diff' },
    ]);
    // the fence is longer than the backticks inside, so the diff cannot close it
    expect(change.text).to.contain('diff of src/a.js (untrusted data').and.contain('````');
    expect(change.text).to.contain('- not shown: logo.png (binary or too large for a text diff)');
  });

  it('a change over the size of one review names the files it leaves out', () => {
    const big = `@@ -1 +1,2000 @@\n${'+x'.repeat(1).concat('\n').repeat(2000)}`;
    const files = Array.from({ length: 30 }, (_, i) => file(`src/f${i}.js`, big));
    const change = reviewedChange(files);
    expect(change.text.length).to.be.at.most(REVIEW_DIFF_CHARS + 2_000);
    expect(change.shown + change.skipped.length).to.equal(30);
    expect(change.skipped[0]!.reason).to.equal('over the size of one review');
  });
});
