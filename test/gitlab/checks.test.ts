import { expect } from 'chai';
import { hintOf } from '../../src/errors/catalog.ts';
import { loadConfig } from '../../src/config/load.ts';
import { ConfigError, ExternalServiceError, UsageError } from '../../src/errors/errors.ts';
import {
  checkTokenScopes,
  checkTriggeringUser,
  readRepositoryConfig,
  runStartChecks,
} from '../../src/gitlab/checks.ts';
import { GitLabNoteTarget } from '../../src/gitlab/note-target.ts';
import { startWorld, type World } from './world.ts';

describe('gitlab/checks and note-target (M4, M5, H1)', () => {
  let w: World;
  beforeEach(async () => {
    w = await startWorld();
  });
  afterEach(() => w.close());

  it('M5 refuses to start when the token lacks the api scope, naming the scopes it has', async () => {
    const readOnly = w.standIn.model.addToken(w.s.bot.id, {
      scopes: ['read_api', 'read_repository'],
    });
    const error = await checkTokenScopes(w.clientFor(readOnly.value)).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(ConfigError);
    expect((error as Error).message).to.equal(
      'the GitLab token lacks the `api` scope (it has: read_api, read_repository)',
    );
    expect((error as ConfigError).hint).to.contain('MR_AGENT_GITLAB_TOKEN');
  });

  it('M5 accepts an api token, refuses a revoked one, and tolerates tokens GitLab cannot describe', async () => {
    expect((await checkTokenScopes(w.gitlab))?.scopes).to.deep.equal(['api']);
    const expired = w.standIn.model.addToken(w.s.bot.id, { expiresAt: '2000-01-01T00:00:00Z' });
    const error = (await runStartChecks({
      gitlab: w.clientFor(expired.value),
      project: w.s.project.id,
      minimumAccessLevel: 'developer',
    }).catch((e: unknown) => e)) as ExternalServiceError;
    expect(error).to.be.instanceOf(ExternalServiceError);
    expect(error.status).to.equal(401);
    expect(hintOf(error)).to.contain('expired');
    // A job token is not an access token: /personal_access_tokens/self answers 401.
    const { jobs } = await w.standIn.model.createPipeline({
      project: w.s.project,
      ref: 'main',
      userId: w.s.bot.id,
    });
    const jobToken = w.standIn.model.addJobToken(jobs[0]!);
    expect(await checkTokenScopes(w.clientFor(jobToken.value, 'job'))).to.equal(undefined);
  });

  it('M4 re-checks the triggering user: a Guest is refused, a Developer (inherited) passes', async () => {
    expect(
      await checkTriggeringUser(w.gitlab, w.s.project.id, w.s.developer.id, 'developer'),
    ).to.equal(30);
    const error = await checkTriggeringUser(
      w.gitlab,
      w.s.project.id,
      w.s.guest.id,
      'developer',
    ).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(UsageError);
    expect((error as Error).message).to.contain('has the guest role');
    expect((error as Error).message).to.contain('needs at least developer');
  });

  it('M4 reads .mr-agent.yml from the default branch, not from the merge request branch', async () => {
    await w.standIn.model.commit(w.s.project, 'feature/greeting', {
      '.mr-agent.yml': 'planning:\n  max_subtasks: 99\n',
    });
    const project = await w.gitlab.getProject(w.s.project.id);
    const file = await readRepositoryConfig(w.gitlab, project);
    expect(file?.location).to.equal('.mr-agent.yml (default branch main)');
    const config = await loadConfig({ env: {}, file });
    expect(config.config.planning.max_subtasks).to.equal(5);
  });

  it('M4 runStartChecks returns the bot, project and config in one go', async () => {
    const result = await runStartChecks({
      gitlab: w.gitlab,
      project: 'acme/app',
      triggeredBy: w.s.developer.id,
      minimumAccessLevel: 'developer',
    });
    expect(result.bot.username).to.equal('mr-agent-bot');
    expect(result.project.defaultBranch).to.equal('main');
    expect(result.triggeringUserLevel).to.equal(30);
    expect(result.configFile?.text).to.contain('max_subtasks: 5');
  });

  it('issue 22 the start checks make their reads at once: with the project unanswered, the rest is asked already', async () => {
    w.standIn.faults.add({ method: 'GET', path: `/projects/${w.s.project.id}`, hang: true });
    w.standIn.requests.clear();
    const checks = runStartChecks({
      gitlab: w.gitlab,
      project: w.s.project.id,
      triggeredBy: w.s.developer.id,
      alsoCheck: [w.s.maintainer.id],
      minimumAccessLevel: 'developer',
      defaultBranchHint: 'main',
    }).catch((e: unknown) => e);
    const asked = () => Object.keys(w.standIn.requests.byRoute()).sort();
    for (let i = 0; i < 200 && asked().length < 5; i++) await new Promise((r) => setTimeout(r, 10));

    expect(asked()).to.deep.equal([
      'GET /personal_access_tokens/self',
      'GET /projects/:id',
      'GET /projects/:id/members/all/:user_id',
      'GET /projects/:id/repository/files/:file_path/raw',
      'GET /user',
    ]);
    expect(w.standIn.requests.count({ route: '/projects/:id/members/all/:user_id' })).to.equal(2);
    await w.close();
    await checks;
  });

  it("M4 the configuration comes from the project's default branch even when CI_DEFAULT_BRANCH names another", async () => {
    await w.standIn.model.commit(w.s.project, 'feature/greeting', {
      '.mr-agent.yml': 'planning:\n  max_subtasks: 99\n',
    });
    const result = await runStartChecks({
      gitlab: w.gitlab,
      project: w.s.project.id,
      minimumAccessLevel: 'developer',
      defaultBranchHint: 'feature/greeting',
    });
    expect(result.configFile?.location).to.equal('.mr-agent.yml (default branch main)');
    expect(result.configFile?.text).to.contain('max_subtasks: 5');
  });

  it('M4/M5 the first failing check in order decides the message, though all were asked at once', async () => {
    const readOnly = w.standIn.model.addToken(w.s.bot.id, { scopes: ['read_api'] });
    const error = await runStartChecks({
      gitlab: w.clientFor(readOnly.value),
      project: w.s.project.id,
      triggeredBy: w.s.guest.id,
      minimumAccessLevel: 'developer',
    }).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(ConfigError);
    expect((error as Error).message).to.contain('lacks the `api` scope');
    expect(w.standIn.requests.count({ route: '/projects/:id/members/all/:user_id' })).to.equal(1);
  });

  it('H1 GitLabNoteTarget creates, edits and replies in a thread (by discussion or note id)', async () => {
    const target = new GitLabNoteTarget(
      w.gitlab,
      w.s.project.id,
      { type: 'merge_request', iid: 1 },
      'http://mr/1',
    );
    const created = await target.createNote('hello');
    expect(created.url).to.equal(`http://mr/1#note_${created.id}`);
    await target.editNote(created.id, 'hello again');
    const human = w.standIn.model.addNote({
      on: w.s.mergeRequest,
      body: 'question?',
      authorId: w.s.developer.id,
    });
    await target.createNote('answer', { replyTo: String(human.id) });
    const threads = await w.gitlab.listDiscussions(w.s.project.id, {
      type: 'merge_request',
      iid: 1,
    });
    expect(threads.map((t) => t.notes.map((n) => n.body))).to.deep.equal([
      ['hello again'],
      ['question?', 'answer'],
    ]);
  });
});
