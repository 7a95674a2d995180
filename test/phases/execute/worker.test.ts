import { expect } from 'chai';
import { statusPaths } from '../../../src/phases/execute/worker.ts';

describe('phases/execute/worker (N1: the files an external CLI changed)', () => {
  it('reads modified, added, untracked and renamed paths from `git status --porcelain -z`', () => {
    const output = [
      ' M src/a.js',
      'A  src/b.js',
      '?? docs/new file.md',
      'R  src/new.js',
      'src/old.js',
      '',
    ].join('\0');

    expect(statusPaths(output)).to.deep.equal([
      'src/a.js',
      'src/b.js',
      'docs/new file.md',
      'src/new.js',
    ]);
  });
});
