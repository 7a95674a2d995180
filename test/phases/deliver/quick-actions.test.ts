import { expect } from 'chai';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { deliver } from '../../../src/phases/deliver/deliver.ts';
import { hasUnescapedQuickAction } from '../../../src/report/markdown.ts';
import { extractQuickActions } from '../../../src/testkit/gitlab-server/quick-actions.ts';
import { git, startDeliveryWorld, type DeliveryWorld } from './delivery-world.ts';

/** What a model (or an injected text it obeys) puts in its summary. */
const SUMMARY = [
  'Done.',
  '/merge',
  '/approve',
  '<!--',
  '/close',
  '-->',
  '  /assign @mallory',
  '> /label ~pwned',
  '```',
  '/ready',
  '```',
].join('\n');

/**
 * Quick actions escaped everywhere GitLab runs them (issue 19 §2): GitLab runs
 * them in notes and in the descriptions of issues and merge requests created
 * through the API; a merge request opened in GitLab from a branch with one
 * commit takes that commit's message as its description. Titles are not read
 * for them. The stand-in runs (records) what GitLab would.
 */
describe('phases/deliver: no quick action in what delivery writes (issue 19 §2)', () => {
  let d: DeliveryWorld;
  beforeEach(async () => {
    d = await startDeliveryWorld();
  });
  afterEach(() => d.close());

  it('an issue run whose summary holds /merge yields an escaped description (issue 19 §2)', async () => {
    const issue = await d.w.gitlab.getIssue(d.project.id, 1);
    const dir = d.checkout('main');
    await writeFile(path.join(dir, 'notes.md'), 'x\n');
    const result = await deliver(d.input(dir, { kind: 'issue', issue }, { body: SUMMARY }));
    expect(result.status).to.equal('pushed');
    const iid = result.status === 'pushed' ? result.mergeRequest!.iid : 0;
    const mr = await d.w.gitlab.getMergeRequest(d.project.id, iid);
    expect(d.w.standIn.model.quickActions).to.deep.equal([]);
    expect(hasUnescapedQuickAction(mr.description)).to.equal(false);
    expect(mr.description).to.contain('\\/merge').and.contain('Closes #1');
  });

  it('a change delivered elsewhere opens a merge request whose title and description run nothing (issue 19 §2)', async () => {
    const dir = d.checkout('main');
    await writeFile(path.join(dir, 'notes.md'), 'x\n');
    const result = await deliver(
      d.input(dir, { kind: 'branch', branch: 'main' }, { title: '/merge now', body: SUMMARY }),
    );
    expect(result.status).to.equal('pushed-elsewhere');
    const iid = result.status === 'pushed-elsewhere' ? result.mergeRequest!.iid : 0;
    const mr = await d.w.gitlab.getMergeRequest(d.project.id, iid);
    expect(d.w.standIn.model.quickActions).to.deep.equal([]);
    expect(hasUnescapedQuickAction(mr.description)).to.equal(false);
    expect(mr.title).to.equal('Draft: /merge now');
  });

  it('a commit whose message holds /merge lines has each escaped: no quick action when GitLab makes it a description (issue 19 §2)', async () => {
    const dir = d.checkout('feature/greeting');
    await writeFile(path.join(dir, 'notes.md'), 'x\n');
    const result = await deliver(
      d.input(dir, await d.mrTarget(), { title: '/approve', body: SUMMARY }),
    );
    expect(result.status).to.equal('pushed');
    const message = git(
      d.w.standIn.model.projects.get(d.project.id)!.repoDir,
      'log',
      '-1',
      '--format=%B',
      'feature/greeting',
    );
    expect(hasUnescapedQuickAction(message), message).to.equal(false);
    expect(message.replaceAll('\u200B', '')).to.contain('/merge').and.contain('/approve');
    // GitLab's own step, as on a merge request opened in the UI from this one commit
    expect(extractQuickActions(message).actions).to.deep.equal([]);
  });
});
