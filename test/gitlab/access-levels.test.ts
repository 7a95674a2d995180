import { expect } from 'chai';
import { ACCESS_LEVELS } from '../../src/config/options.ts';
import { ACCESS_LEVEL, accessLevelName, roleOf } from '../../src/gitlab/access-levels.ts';

/** One access-level table (issue 17 #7): GitLab's role numbers (doc/api/members.md, "Roles"). */
describe('gitlab/access-levels', () => {
  it('issue 17 #7 names 0 and 5 as GitLab does, and every role between', () => {
    expect(accessLevelName(0)).to.equal('no access');
    expect(accessLevelName(5)).to.equal('minimal access');
    expect(accessLevelName(10)).to.equal('guest');
    expect(accessLevelName(15)).to.equal('planner');
    expect(accessLevelName(20)).to.equal('reporter');
    expect(accessLevelName(30)).to.equal('developer');
    expect(accessLevelName(40)).to.equal('maintainer');
    expect(accessLevelName(50)).to.equal('owner');
  });

  it('a number between roles is named by the role below it; a negative one has no access', () => {
    expect(accessLevelName(35)).to.equal('developer');
    expect(accessLevelName(60)).to.equal('owner');
    expect(accessLevelName(-1)).to.equal('no access');
  });

  it('a message says which role a user has, or that they have none', () => {
    expect(roleOf(0)).to.equal('has no access');
    expect(roleOf(10)).to.equal('has the guest role');
  });

  it('every role `trigger.min_access_level` accepts has its number in the table', () => {
    for (const name of ACCESS_LEVELS) expect(ACCESS_LEVEL[name], name).to.be.a('number');
    expect(ACCESS_LEVEL.developer).to.equal(30);
  });
});
