import { expect } from 'chai';
import type { ChangedFile, DiffVersion } from '../../../src/core/gitlab-port.ts';
import { anchorFinding } from '../../../src/phases/review/inline/anchor.ts';

/** Where a finding of `/agent review` sits in the diff. */
const version: DiffVersion = { id: 1, headSha: 'h', baseSha: 'b', startSha: 's', createdAt: '' };
const file: ChangedFile = {
  oldPath: 'src/a.js',
  newPath: 'src/a.js',
  status: 'modified',
  additions: 2,
  deletions: 2,
  // two hunks: line 2 changed, then line 20 changed; 21 is unchanged
  diff: '@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n@@ -19,3 +19,3 @@\n nineteen\n-twenty\n+TWENTY\n twenty-one\n',
};

describe('review: a finding anchored on the diff (issue 30)', () => {
  it('G1 a finding across two hunks that ends on an unchanged line is placed on that line with both its numbers, without a suggestion', () => {
    const anchor = anchorFinding(
      { file: 'src/a.js', line: 2, end_line: 21, severity: 'minor', message: 'm', suggestion: 'x' },
      file,
      version,
    );
    expect(anchor.lines).to.deep.equal([]);
    expect(anchor.position).to.include({ newLine: 21, oldLine: 21 });
    expect(anchor.position.lineRange).to.equal(undefined);
  });

  it('a finding across two hunks that ends on an added line names its new line only', () => {
    const anchor = anchorFinding(
      { file: 'src/a.js', line: 2, end_line: 20, severity: 'minor', message: 'm' },
      file,
      version,
    );
    expect(anchor.position).to.include({ newLine: 20, oldLine: undefined });
  });
});
