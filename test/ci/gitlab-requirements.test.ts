import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import {
  formatVersion,
  JOB_FEATURES,
  lackingFeatures,
  parseGitLabVersion,
  versionNotices,
} from '../../src/gitlab/requirements.ts';

describe('gitlab/requirements: the versions the job needs, stated and checked', () => {
  it('reads `GET /version` answers as GitLab writes them', () => {
    expect(parseGitLabVersion('17.11.2-ee')).to.deep.equal([17, 11]);
    expect(parseGitLabVersion('8.13.0-pre')).to.deep.equal([8, 13]);
    expect(parseGitLabVersion('18.1')).to.deep.equal([18, 1]);
    expect(parseGitLabVersion('not a version')).to.equal(undefined);
    expect(versionNotices('not a version', 'en')).to.deep.equal([]);
  });

  it('a feature is lacking strictly below its minimum', () => {
    expect(lackingFeatures([15, 4]).map((f) => formatVersion(f.minimum))).to.deep.equal([
      '15.5',
      '18.1',
    ]);
    expect(lackingFeatures([15, 5]).map((f) => formatVersion(f.minimum))).to.deep.equal(['18.1']);
    expect(lackingFeatures([18, 1])).to.deep.equal([]);
    expect(lackingFeatures([19, 0])).to.deep.equal([]);
  });

  it('the notes name the found version and the needed one in English and Japanese', () => {
    for (const language of ['en', 'ja'] as const) {
      const lines = versionNotices('15.4.2-ee', language);
      expect(lines).to.have.length(2);
      expect(lines[0]).to.contain('15.4.2-ee').and.contain('15.5');
      expect(lines[1]).to.contain('15.4.2-ee').and.contain('18.1');
    }
  });

  it('docs/gitlab.md states every feature the job checks with its minimum version', () => {
    const docs = readFileSync('docs/gitlab.md', 'utf8');
    const table = docs.slice(
      docs.indexOf('## GitLab versions'),
      docs.indexOf('## Talking to the API'),
    );
    for (const f of JOB_FEATURES) {
      const row = table.split('\n').find((line) => line.startsWith(`| ${f.feature} |`));
      expect(row, f.feature).to.be.a('string');
      expect(row!.split('|')[2]!.trim(), f.feature).to.equal(formatVersion(f.minimum));
    }
  });
});
