import { expect } from 'chai';
import { unzipSync } from 'fflate';
import { ExternalServiceError } from '../../src/errors/errors.ts';
import type { Noteable } from '../../src/core/gitlab-port.ts';
import { startWorld, type World } from './world.ts';

async function rejection(promise: Promise<unknown>): Promise<ExternalServiceError> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(ExternalServiceError);
    return error as ExternalServiceError;
  }
  throw new Error('expected a rejection');
}

describe('gitlab/gitbeaker-adapter (against the stand-in over HTTP)', () => {
  let w: World;
  let mr: Noteable;
  let issue: Noteable;
  beforeEach(async () => {
    w = await startWorld();
    mr = { type: 'merge_request', iid: w.s.mergeRequest.iid };
    issue = { type: 'issue', iid: w.s.issue.iid };
  });
  afterEach(() => w.close());

  it('C1 loads a merge request with its branches, labels, author and changed files', async () => {
    const loaded = await w.gitlab.getMergeRequest(w.s.project.id, mr.iid);
    expect(loaded).to.include({
      title: 'Friendlier greeting',
      description: 'Makes the greeting friendlier.',
      sourceBranch: 'feature/greeting',
      targetBranch: 'main',
      isFork: false,
      draft: false,
    });
    expect(loaded.labels).to.deep.equal(['enhancement']);
    expect(loaded.author.username).to.equal('dev');
    expect(loaded.sha).to.match(/^[0-9a-f]{40}$/);

    const changes = await w.gitlab.listMergeRequestChanges(w.s.project.path, mr.iid);
    expect(changes).to.have.length(1);
    expect(changes[0]).to.include({
      newPath: 'src/greet.js',
      status: 'modified',
      additions: 1,
      deletions: 1,
    });
    expect(changes[0]!.diff).to.contain('+  return `Hello, ${name}!`;');
  });

  it('C1 tells a fork merge request by source_project_id ≠ target_project_id and reads its diff', async () => {
    const { model } = w.standIn;
    const fork = await model.addProject({ path: 'dev/app', forkOf: w.s.project });
    await model.commit(fork, 'fix', { 'NEW.md': 'new\n' }, { from: 'main' });
    const rec = model.createMergeRequest({
      project: w.s.project,
      sourceProject: fork,
      sourceBranch: 'fix',
      title: 'From a fork',
      authorId: w.s.developer.id,
    });

    const loaded = await w.gitlab.getMergeRequest(w.s.project.id, rec.iid);
    expect(loaded).to.include({
      isFork: true,
      sourceProjectId: fork.id,
      targetProjectId: w.s.project.id,
    });
    const changes = await w.gitlab.listMergeRequestChanges(w.s.project.id, rec.iid);
    expect(changes.map((c) => [c.newPath, c.status])).to.deep.equal([['NEW.md', 'added']]);
  });

  it('C1 loads an issue', async () => {
    const loaded = await w.gitlab.getIssue(w.s.project.id, issue.iid);
    expect(loaded).to.include({ title: 'Add a farewell function', state: 'opened' });
    expect(loaded.labels).to.deep.equal(['feature']);
  });

  it('C1 lists every note oldest first across pages and tells system notes apart', async () => {
    const { model } = w.standIn;
    model.addNote({
      on: w.s.mergeRequest,
      body: 'added 1 commit',
      authorId: w.s.developer.id,
      system: true,
    });
    for (let i = 0; i < 130; i++)
      model.addNote({ on: w.s.mergeRequest, body: `comment ${i}`, authorId: w.s.developer.id });

    const notes = await w.gitlab.listNotes(w.s.project.id, mr);
    expect(notes).to.have.length(131);
    expect(notes[0]).to.include({ body: 'added 1 commit', system: true });
    expect(notes[1]).to.include({ body: 'comment 0', system: false });
    expect(notes.at(-1)!.body).to.equal('comment 129');
    expect(
      w.standIn.requests.count({ method: 'GET', route: '/projects/:id/merge_requests/:iid/notes' }),
    ).to.equal(2);
  });

  it('C1 reads discussions with their replies, and replies inside a thread', async () => {
    const { model } = w.standIn;
    const first = model.addNote({
      on: w.s.mergeRequest,
      body: 'please rename',
      authorId: w.s.developer.id,
    });
    model.addNote({ on: w.s.mergeRequest, body: 'standalone', authorId: w.s.guest.id });

    const reply = await w.gitlab.replyToDiscussion(w.s.project.id, mr, first.discussionId, 'on it');
    const discussions = await w.gitlab.listDiscussions(w.s.project.id, mr);

    expect(discussions).to.have.length(2);
    expect(discussions[0]!.individualNote).to.equal(false);
    expect(discussions[0]!.notes.map((n) => n.body)).to.deep.equal(['please rename', 'on it']);
    expect(discussions[0]!.notes[1]!.id).to.equal(reply.id);
    expect(discussions[1]).to.deep.include({ individualNote: true });
  });

  it('#24 starts a thread (POST …/discussions): a resolvable discussion note on a merge request and on an issue, replies land in it', async () => {
    for (const on of [mr, issue]) {
      const thread = await w.gitlab.createDiscussion(w.s.project.id, on, '@dev, which file?');
      expect(thread.individualNote).to.equal(false);
      expect(thread.notes.map((n) => n.body)).to.deep.equal(['@dev, which file?']);
      await w.gitlab.replyToDiscussion(w.s.project.id, on, thread.id, 'README.md');
      const read = await w.gitlab.getDiscussion(w.s.project.id, on, thread.id);
      expect(read!.notes.map((n) => n.body)).to.deep.equal(['@dev, which file?', 'README.md']);
    }
    expect(
      w.standIn.requests.count({
        method: 'POST',
        route: '/projects/:id/merge_requests/:iid/discussions',
      }),
    ).to.equal(1);
    expect(
      w.standIn.requests.count({ method: 'POST', route: '/projects/:id/issues/:iid/discussions' }),
    ).to.equal(1);
    // GitLab's answer: the thread's notes are DiscussionNotes, resolvable (raw JSON, as GitLab sends it)
    const raw = await fetch(
      `${w.standIn.url}/api/v4/projects/${w.s.project.id}/merge_requests/${mr.iid}/discussions`,
      { headers: { 'PRIVATE-TOKEN': w.s.botToken.value } },
    );
    const listed = (await raw.json()) as Array<{
      individual_note: boolean;
      notes: Array<{ type: string | null; resolvable: boolean }>;
    }>;
    expect(listed.at(-1)).to.deep.include({ individual_note: false });
    expect(listed.at(-1)!.notes.map((n) => [n.type, n.resolvable])).to.deep.equal([
      ['DiscussionNote', true],
      ['DiscussionNote', true],
    ]);
  });

  it('F4 reads one discussion by its id (GET …/discussions/:id), and none for an unknown id', async () => {
    const { model } = w.standIn;
    const first = model.addNote({
      on: w.s.mergeRequest,
      body: 'which file?',
      authorId: w.s.bot.id,
    });
    model.addNote({
      on: w.s.mergeRequest,
      body: 'README.md',
      authorId: w.s.developer.id,
      discussionId: first.discussionId,
    });
    model.addNote({ on: w.s.mergeRequest, body: 'elsewhere', authorId: w.s.guest.id });

    const thread = await w.gitlab.getDiscussion(w.s.project.id, mr, first.discussionId);
    const missing = await w.gitlab.getDiscussion(w.s.project.id, mr, 'f'.repeat(40));

    expect(thread?.id).to.equal(first.discussionId);
    expect(thread?.notes.map((n) => n.body)).to.deep.equal(['which file?', 'README.md']);
    expect(missing).to.equal(undefined);
    const routes = w.standIn.requests.entries.map((r) => `${r.route} ${r.status}`);
    expect(routes).to.include.members([
      '/projects/:id/merge_requests/:iid/discussions/:discussion_id 200',
      '/projects/:id/merge_requests/:iid/discussions/:discussion_id 404',
    ]);
    expect(routes.filter((r) => r.includes('/discussions '))).to.have.length(0);
  });

  it('H1 creates and edits a note on a merge request and on an issue', async () => {
    for (const on of [mr, issue]) {
      const note = await w.gitlab.createNote(w.s.project.id, on, 'first');
      expect(note.author.username).to.equal('mr-agent-bot');
      await w.gitlab.editNote(w.s.project.id, on, note.id, 'second');
      expect((await w.gitlab.getNote(w.s.project.id, on, note.id)).body).to.equal('second');
    }
  });

  it('H1 cannot edit somebody else’s note (403 as ExternalServiceError)', async () => {
    const other = w.standIn.model.addNote({
      on: w.s.mergeRequest,
      body: 'mine',
      authorId: w.s.developer.id,
    });
    const error = await rejection(w.gitlab.editNote(w.s.project.id, mr, other.id, 'hijacked'));
    expect(error.status).to.equal(403);
    expect(error.message).to.contain('PUT /api/v4/projects/');
  });

  it('H0 a note body over GitLab’s 1,000,000-character limit is refused with 400', async () => {
    const error = await rejection(w.gitlab.createNote(w.s.project.id, mr, 'x'.repeat(1_000_001)));
    expect(error.status).to.equal(400);
    expect(error.message).to.contain('is too long (maximum is 1000000 characters)');
    await w.gitlab.createNote(w.s.project.id, mr, 'x'.repeat(1_000_000));
  });

  it('A2 awarding the same emoji twice: GitLab’s 404 "has already been taken" becomes awarded:false', async () => {
    const note = w.standIn.model.addNote({
      on: w.s.mergeRequest,
      body: '/agent fix',
      authorId: w.s.developer.id,
    });
    const first = await w.gitlab.awardEmojiOnNote(w.s.project.id, mr, note.id, 'eyes');
    const second = await w.gitlab.awardEmojiOnNote(w.s.project.id, mr, note.id, 'eyes');

    expect(first).to.deep.include({ awarded: true });
    expect(second).to.deep.equal({ awarded: false });
    const awards = await w.gitlab.listNoteAwardEmoji(w.s.project.id, mr, note.id);
    expect(awards.map((a) => [a.name, a.user.username])).to.deep.equal([['eyes', 'mr-agent-bot']]);
    // Another user may still award it.
    const dev = w.clientFor(w.s.developerToken.value);
    expect(await dev.awardEmojiOnNote(w.s.project.id, mr, note.id, 'eyes')).to.deep.include({
      awarded: true,
    });
  });

  it('M4 reads access levels including inherited group membership; 0 for non-members', async () => {
    const outsider = w.standIn.model.addUser({ username: 'outsider' });
    expect(await w.gitlab.accessLevel(w.s.project.id, w.s.developer.id)).to.equal(30);
    expect(await w.gitlab.accessLevel(w.s.project.id, w.s.guest.id)).to.equal(10);
    expect(await w.gitlab.accessLevel(w.s.project.id, outsider.id)).to.equal(0);
  });

  it('M5 reads the bot user and its token scopes', async () => {
    expect(await w.gitlab.currentUser()).to.include({ username: 'mr-agent-bot', bot: true });
    expect((await w.gitlab.tokenInfo()).scopes).to.deep.equal(['api']);
  });

  it('H3 reads project, protected branches and files on a ref (undefined when missing)', async () => {
    expect(await w.gitlab.getProject('acme/app')).to.include({
      defaultBranch: 'main',
      id: w.s.project.id,
    });
    expect(await w.gitlab.listProtectedBranches(w.s.project.id)).to.deep.equal([{ name: 'main' }]);
    expect(await w.gitlab.readFile(w.s.project.id, 'src/greet.js', 'feature/greeting')).to.contain(
      'Hello, ',
    );
    expect(await w.gitlab.readFile(w.s.project.id, 'nope.txt', 'main')).to.equal(undefined);
  });

  it('H3 creates a draft merge request', async () => {
    await w.standIn.model.commit(
      w.s.project,
      'mr-agent/issue-1',
      { 'x.txt': 'x\n' },
      { from: 'main' },
    );
    const created = await w.gitlab.createMergeRequest(w.s.project.id, {
      sourceBranch: 'mr-agent/issue-1',
      targetBranch: 'main',
      title: 'Resolve "Add a farewell function"',
      description: 'Closes #1',
      draft: true,
    });
    expect(created).to.include({ draft: true, title: 'Draft: Resolve "Add a farewell function"' });
    const found = await w.gitlab.findMergeRequests(w.s.project.id, {
      sourceBranch: 'mr-agent/issue-1',
      state: 'opened',
    });
    expect(found.map((m) => m.iid)).to.deep.equal([created.iid]);
  });

  it('M3 a merge request description runs no quick action, whoever built it: the adapter escapes it last (issue 19 §2)', async () => {
    await w.standIn.model.commit(
      w.s.project,
      'mr-agent/issue-2',
      { 'y.txt': 'y\n' },
      { from: 'main' },
    );
    const created = await w.gitlab.createMergeRequest(w.s.project.id, {
      sourceBranch: 'mr-agent/issue-2',
      targetBranch: 'main',
      title: 'Resolve "x"\n/merge',
      description: 'Closes #1\n/merge\n/approve',
      draft: true,
    });
    expect(w.standIn.model.quickActions).to.deep.equal([]);
    expect(created.title).to.equal('Draft: Resolve "x" /merge');
    const loaded = await w.gitlab.getMergeRequest(w.s.project.id, created.iid);
    expect(loaded.description).to.equal('Closes #1\n\\/merge\n\\/approve');
  });

  it('A2 triggers a pipeline with variables, lists it by ref and status, and cancels it', async () => {
    const trigger = w.standIn.model.addTriggerToken(w.s.project, w.s.maintainer.id);
    const pipeline = await w.gitlab.triggerPipeline(w.s.project.id, {
      token: trigger.value,
      ref: 'feature/greeting',
      variables: { MR_AGENT_TASK: 'fix the typo', MR_AGENT_MR_IID: '1' },
    });
    expect(pipeline).to.include({ ref: 'feature/greeting', status: 'pending', source: 'trigger' });
    expect(await w.gitlab.pipelineVariables(w.s.project.id, pipeline.id)).to.deep.equal({
      MR_AGENT_TASK: 'fix the typo',
      MR_AGENT_MR_IID: '1',
    });
    const running = await w.gitlab.listPipelines(w.s.project.id, {
      ref: 'feature/greeting',
      status: 'pending',
    });
    expect(running.map((p) => p.id)).to.deep.equal([pipeline.id]);
    expect(
      (await w.gitlab.listPipelineJobs(w.s.project.id, pipeline.id)).map((j) => j.name),
    ).to.deep.equal(['mr-agent']);

    expect((await w.gitlab.cancelPipeline(w.s.project.id, pipeline.id)).status).to.equal(
      'canceled',
    );
    expect(await w.gitlab.listPipelines(w.s.project.id, { status: 'pending' })).to.deep.equal([]);
    const logged = w.standIn.requests.entries.find((e) => e.route.endsWith('/trigger/pipeline'));
    expect(logged?.path).not.to.contain(trigger.value);
  });

  it('A2 trigger variables keep line breaks, & and = (gitbeaker cut them at the first)', async () => {
    const trigger = w.standIn.model.addTriggerToken(w.s.project, w.s.maintainer.id);
    const task = 'fix a & b\nthen x=1&y=2 %41 + plus\n/merge\n\ud800 🚀 \u202e';
    const pipeline = await w.gitlab.triggerPipeline(w.s.project.id, {
      token: trigger.value,
      ref: 'main',
      variables: { MR_AGENT_TASK: task, MR_AGENT_SOURCE: 'note' },
    });

    // multipart form fields carry line breaks as CRLF (as from any browser form)
    expect(await w.gitlab.pipelineVariables(w.s.project.id, pipeline.id)).to.deep.equal({
      MR_AGENT_TASK: task.replace('\ud800', '\ufffd').replace(/\n/g, '\r\n'),
      MR_AGENT_SOURCE: 'note',
    });
  });

  it('A2 a wrong trigger token is refused with 404', async () => {
    const error = await rejection(
      w.gitlab.triggerPipeline(w.s.project.id, { token: 'wrong', ref: 'main' }),
    );
    expect(error.status).to.equal(404);
  });

  it('I2 downloads job artifacts as a zip, and 404 once they are deleted', async () => {
    const { model } = w.standIn;
    const { jobs } = await model.createPipeline({
      project: w.s.project,
      ref: 'main',
      userId: w.s.bot.id,
    });
    model.setJobArtifacts(jobs[0]!.id, { '.mr-agent/metadata.json': '{"ok":true}' });

    const zip = await w.gitlab.downloadJobArtifacts(w.s.project.id, jobs[0]!.id);
    expect(new TextDecoder().decode(unzipSync(zip)['.mr-agent/metadata.json'])).to.equal(
      '{"ok":true}',
    );

    model.deleteJobArtifacts(jobs[0]!.id);
    expect(
      (await rejection(w.gitlab.downloadJobArtifacts(w.s.project.id, jobs[0]!.id))).status,
    ).to.equal(404);
  });
});
