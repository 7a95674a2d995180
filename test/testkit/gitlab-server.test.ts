import { expect } from 'chai';
import { Gitlab } from '@gitbeaker/rest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { execFileSync } from 'node:child_process';
import { startWorld, type World } from '../gitlab/world.ts';

const gitHead = (repoDir: string, ref: string) =>
  execFileSync('git', ['rev-parse', ref], { cwd: repoDir, encoding: 'utf8' }).trim();

describe('testkit/gitlab-server (the GitLab stand-in on the wire)', () => {
  let w: World;
  beforeEach(async () => {
    w = await startWorld();
  });
  afterEach(() => w.close());

  const api = (path: string, init: RequestInit = {}, token = w.s.botToken.value) =>
    fetch(`${w.standIn.url}/api/v4${path}`, {
      ...init,
      headers: { 'private-token': token, 'content-type': 'application/json', ...init.headers },
    });
  const notesPath = () => `/projects/${w.s.project.id}/merge_requests/1/notes`;

  it('answers 401 {"message":"401 Unauthorized"} for a missing or wrong token, and accepts Bearer', async () => {
    const missing = await fetch(`${w.standIn.url}/api/v4/user`);
    expect(missing.status).to.equal(401);
    expect(await missing.json()).to.deep.equal({ message: '401 Unauthorized' });
    expect((await api('/user', {}, 'nope')).status).to.equal(401);
    const bearer = await fetch(`${w.standIn.url}/api/v4/user`, {
      headers: { authorization: `Bearer ${w.s.botToken.value}` },
    });
    expect(((await bearer.json()) as { username: string }).username).to.equal('mr-agent-bot');
  });

  it('resolves a merge request thread (PUT …/discussions/:id resolved=true) as GitLab does; a plain comment is not resolvable', async () => {
    const base = `/projects/${w.s.project.id}/merge_requests/1/discussions`;
    const started = await api(base, { method: 'POST', body: '{"body":"❓ which branch?"}' });
    const thread = (await started.json()) as { id: string };
    const put = await api(`${base}/${thread.id}`, { method: 'PUT', body: '{"resolved":true}' });
    expect(put.status).to.equal(200);
    const shown = (await put.json()) as {
      notes: Array<{ resolved: boolean; resolvable: boolean }>;
    };
    expect(shown.notes[0]).to.include({ resolvable: true, resolved: true });
    const plain = (await (
      await api(notesPath(), { method: 'POST', body: '{"body":"hi"}' })
    ).json()) as {
      id: number;
    };
    const comment = w.standIn.model.notes.find((n) => n.id === plain.id)!;
    const refused = await api(`${base}/${comment.discussionId}`, {
      method: 'PUT',
      body: '{"resolved":true}',
    });
    // a plain comment is no resolvable note: GitLab's resolve permission check refuses it
    expect(refused.status).to.equal(403);
  });

  it('M5 a read_api token gets 403 insufficient_scope on writes', async () => {
    const readOnly = w.standIn.model.addToken(w.s.bot.id, { scopes: ['read_api'] });
    expect((await api(notesPath(), {}, readOnly.value)).status).to.equal(200);
    const post = await api(notesPath(), { method: 'POST', body: '{"body":"hi"}' }, readOnly.value);
    expect(post.status).to.equal(403);
    expect(await post.json()).to.deep.include({ error: 'insufficient_scope', scope: 'api' });
  });

  it('a CI_JOB_TOKEN reads notes and artifacts but cannot post a note', async () => {
    const { jobs } = await w.standIn.model.createPipeline({
      project: w.s.project,
      ref: 'main',
      userId: w.s.developer.id,
    });
    const jobToken = w.standIn.model.addJobToken(jobs[0]!);
    const headers = { 'job-token': jobToken.value, 'content-type': 'application/json' };
    expect((await fetch(`${w.standIn.url}/api/v4${notesPath()}`, { headers })).status).to.equal(
      200,
    );
    const post = await fetch(`${w.standIn.url}/api/v4${notesPath()}`, {
      method: 'POST',
      headers,
      body: '{"body":"x"}',
    });
    expect(post.status).to.equal(401);
  });

  it('paginates notes with GitLab headers, newest first by default', async () => {
    for (let i = 0; i < 25; i++)
      w.standIn.model.addNote({ on: w.s.mergeRequest, body: `n${i}`, authorId: w.s.developer.id });
    const res = await api(`${notesPath()}?per_page=10&page=2`);
    const body = (await res.json()) as { body: string }[];
    expect(body.map((n) => n.body)[0]).to.equal('n14');
    expect(
      Object.fromEntries(
        ['x-page', 'x-per-page', 'x-next-page', 'x-prev-page', 'x-total', 'x-total-pages'].map(
          (h) => [h, res.headers.get(h)],
        ),
      ),
    ).to.deep.equal({
      'x-page': '2',
      'x-per-page': '10',
      'x-next-page': '3',
      'x-prev-page': '1',
      'x-total': '25',
      'x-total-pages': '3',
    });
    expect(res.headers.get('link')).to.match(/<[^>]+page=3[^>]*>; rel="next"/);
  });

  it('A2 refuses a second identical award with GitLab’s exact 404 body', async () => {
    const note = w.standIn.model.addNote({
      on: w.s.mergeRequest,
      body: '/agent go',
      authorId: w.s.developer.id,
    });
    const path = `${notesPath()}/${note.id}/award_emoji`;
    expect((await api(path, { method: 'POST', body: '{"name":"eyes"}' })).status).to.equal(201);
    const again = await api(path, { method: 'POST', body: '{"name":"eyes"}' });
    expect(again.status).to.equal(404);
    expect(await again.json()).to.deep.equal({
      message: '404 Award Emoji Name has already been taken Not Found',
    });
  });

  it('M3 runs (records) quick actions in posted notes; a commands-only note answers 202 and is not kept', async () => {
    const res = await api(notesPath(), {
      method: 'POST',
      body: JSON.stringify({ body: 'Done.\n/approve\n```\n/merge\n```\n/agent again' }),
    });
    expect(res.status).to.equal(201);
    expect(((await res.json()) as { body: string }).body).to.equal(
      'Done.\n```\n/merge\n```\n/agent again',
    );
    const only = await api(notesPath(), {
      method: 'POST',
      body: JSON.stringify({ body: '/merge' }),
    });
    expect(only.status).to.equal(202);
    expect(w.standIn.model.quickActions.map((q) => q.command)).to.deep.equal(['approve', 'merge']);
    expect(w.standIn.model.notes).to.have.length(1);
  });

  it('M3 runs (records) quick actions in the description of a merge request created through the API, and drops their lines (issue 19 §2)', async () => {
    const res = await api(`/projects/${w.s.project.id}/merge_requests`, {
      method: 'POST',
      body: JSON.stringify({
        source_branch: 'feature/greeting',
        target_branch: 'release/2.0',
        title: '/merge this title is no command',
        description: 'Closes #1\n\n/merge\n<!--\n/approve\n-->\n```\n/close\n```\n\\/label ~x',
      }),
    });
    expect(res.status).to.equal(201);
    const mr = (await res.json()) as { title: string; description: string };
    expect(w.standIn.model.quickActions.map((q) => [q.noteableType, q.command])).to.deep.equal([
      ['MergeRequest', 'merge'],
      ['MergeRequest', 'approve'],
    ]);
    expect(mr.title).to.equal('/merge this title is no command');
    expect(mr.description).to.equal('Closes #1\n\n<!--\n-->\n```\n/close\n```\n\\/label ~x');
  });

  it('records the trigger-webhook body as TRIGGER_PAYLOAD and refuses non-string variables', async () => {
    const trigger = w.standIn.model.addTriggerToken(w.s.project, w.s.maintainer.id);
    const hook = await fetch(
      `${w.standIn.url}/api/v4/projects/${w.s.project.id}/ref/main/trigger/pipeline?token=${trigger.value}`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-gitlab-event': 'Note Hook' },
        body: '{"object_kind":"note"}',
      },
    );
    expect(hook.status).to.equal(201);
    expect(w.standIn.model.pipelines.at(-1)!.variables.TRIGGER_PAYLOAD).to.equal(
      '{"object_kind":"note"}',
    );
    const bad = await fetch(`${w.standIn.url}/api/v4/projects/${w.s.project.id}/trigger/pipeline`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: trigger.value, ref: 'main', variables: { A: 1 } }),
    });
    expect(bad.status).to.equal(400);
  });

  it("issue 19 §1 the trigger API takes a fork merge request's ref, which is not protected, and no commit SHA", async () => {
    const { model } = w.standIn;
    const trigger = model.addTriggerToken(w.s.project, w.s.maintainer.id);
    const fork = await model.addProject({ path: 'outsider/app', forkOf: w.s.project });
    await model.commit(fork, 'fix', { 'FIX.md': 'fix\n' }, { from: 'main' });
    const mr = model.createMergeRequest({
      project: w.s.project,
      sourceProject: fork,
      sourceBranch: 'fix',
      title: 'Fork fix',
      authorId: w.s.developer.id,
    });
    model.addCiVariable(w.s.project, 'DEPLOY_TOKEN', 'deploy-secret');
    model.addCiVariable(w.s.project, 'PUBLIC_FLAG', 'on', { protected: false });
    const start = (ref: string) =>
      fetch(`${w.standIn.url}/api/v4/projects/${w.s.project.id}/trigger/pipeline`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token: trigger.value, ref }),
      });

    const onMr = await start(`refs/merge-requests/${mr.iid}/head`);
    expect(onMr.status).to.equal(201);
    const mrPipeline = model.pipelines.at(-1)!;
    expect(mrPipeline.sha).to.equal(gitHead(fork.repoDir, 'refs/heads/fix'));
    expect(mrPipeline.protectedRef).to.equal(false);
    expect(model.jobVariables(mrPipeline)).to.deep.equal({
      PUBLIC_FLAG: 'on',
      CI_COMMIT_REF_PROTECTED: 'false',
    });
    expect((await start('main')).status).to.equal(201);
    expect(model.jobVariables(model.pipelines.at(-1)!)).to.include({
      DEPLOY_TOKEN: 'deploy-secret',
      CI_COMMIT_REF_PROTECTED: 'true',
    });
    const sha = gitHead(w.s.project.repoDir, 'main');
    for (const ref of [sha, 'refs/merge-requests/99/head']) {
      const refused = await start(ref);
      expect(refused.status, ref).to.equal(400);
      expect(await refused.json()).to.deep.equal({ message: { base: ['Reference not found'] } });
    }
  });

  it('injects faults and logs every request by method and route', async () => {
    w.standIn.faults.add({ method: 'GET', path: '/user', status: 500 });
    expect((await api('/user')).status).to.equal(500);
    expect((await api('/user')).status).to.equal(200);
    expect(w.standIn.requests.byRoute()).to.deep.equal({ 'GET /user': 2 });
    expect(w.standIn.requests.entries.map((e) => e.status)).to.deep.equal([500, 200]);
  });

  it('answers @gitbeaker/rest unmodified (default transport)', async () => {
    const api = new Gitlab({ host: w.standIn.url, token: w.s.botToken.value });
    const mr = await api.MergeRequests.show(w.s.project.id, 1);
    expect(mr.source_branch).to.equal('feature/greeting');
    const notes = await api.MergeRequestNotes.all(w.s.project.id, 1);
    expect(notes).to.deep.equal([]);
  });
});

describe('testkit/gitlab-server webhooks (Comments events for the bridge)', () => {
  let w: World;
  let receiver: Server;
  let received: { headers: Record<string, unknown>; body: Record<string, unknown> }[];
  let answer: number;
  beforeEach(async () => {
    w = await startWorld();
    received = [];
    answer = 200;
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push({ headers: req.headers, body: JSON.parse(body) as Record<string, unknown> });
        res.writeHead(answer).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  });
  afterEach(async () => {
    await w.close();
    await new Promise((r) => receiver.close(r));
  });

  const hookUrl = () => `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhook`;

  it('A2 POSTs a Note Hook with the secret token when a user comments on a merge request', async () => {
    w.standIn.hooks.add(w.s.project, hookUrl(), 'hook-secret');
    const dev = w.clientFor(w.s.developerToken.value);
    const note = await dev.createNote(
      w.s.project.id,
      { type: 'merge_request', iid: 1 },
      '/agent fix the typo',
    );
    await w.standIn.hooks.idle();

    expect(received).to.have.length(1);
    expect(received[0]!.headers).to.include({
      'x-gitlab-event': 'Note Hook',
      'x-gitlab-token': 'hook-secret',
    });
    const body = received[0]!.body as {
      object_kind: string;
      user: { id: number; username: string };
      object_attributes: {
        id: number;
        note: string;
        noteable_type: string;
        discussion_id: string;
        system: boolean;
      };
      merge_request: {
        iid: number;
        source_branch: string;
        source_project_id: number;
        target_project_id: number;
      };
      project: { id: number; default_branch: string };
    };
    expect(body.object_kind).to.equal('note');
    expect(body.user).to.include({ id: w.s.developer.id, username: 'dev' });
    expect(body.object_attributes).to.include({
      id: note.id,
      note: '/agent fix the typo',
      noteable_type: 'MergeRequest',
      system: false,
    });
    expect(body.merge_request).to.include({ iid: 1, source_branch: 'feature/greeting' });
    expect(body.project).to.include({ id: w.s.project.id, default_branch: 'main' });
  });

  it("issue 30 a diff thread's first note and its reply reach the hook as DiffNotes with the thread's position and discussion_id", async () => {
    w.standIn.hooks.add(w.s.project, hookUrl());
    const dev = w.clientFor(w.s.developerToken.value);
    const version = (await dev.listDiffVersions!(w.s.project.id, 1))[0]!;
    const thread = await dev.createDiffDiscussion!(w.s.project.id, 1, 'Use a template here.', {
      baseSha: version.baseSha,
      startSha: version.startSha,
      headSha: version.headSha,
      oldPath: 'src/greet.js',
      newPath: 'src/greet.js',
      oldLine: undefined,
      newLine: 2,
    });
    await dev.replyToDiscussion(
      w.s.project.id,
      { type: 'merge_request', iid: 1 },
      thread.id,
      '/agent fix this',
    );
    // a plain comment stays a plain note
    await dev.createNote(w.s.project.id, { type: 'merge_request', iid: 1 }, 'LGTM');
    await w.standIn.hooks.idle();

    type Attributes = {
      note: string;
      type: string | null;
      discussion_id: string;
      line_code: string | null;
      position: { new_path: string; new_line: number; head_sha: string } | null;
    };
    const attributes = received.map((r) => r.body.object_attributes as Attributes);
    expect(attributes.map((a) => a.type)).to.deep.equal(['DiffNote', 'DiffNote', null]);
    for (const a of attributes.slice(0, 2)) {
      expect(a.discussion_id).to.equal(thread.id);
      expect(a.position).to.include({
        new_path: 'src/greet.js',
        new_line: 2,
        head_sha: version.headSha,
      });
      expect(a.line_code).to.match(/^[0-9a-f]{40}_0_2$/);
    }
    expect(attributes[2]!.position).to.equal(null);
  });

  it('A3 disables a hook after four failed deliveries in a row, as GitLab does', async () => {
    const hook = w.standIn.hooks.add(w.s.project, hookUrl());
    answer = 400;
    for (let i = 0; i < 5; i++)
      w.standIn.model.addNote({ on: w.s.issue, body: `c${i}`, authorId: w.s.developer.id });
    await w.standIn.hooks.idle();
    expect(received.length).to.be.at.least(4);
    expect(hook.disabled).to.equal(true);
    expect(w.standIn.hooks.deliveries.every((d) => d.status === 400)).to.equal(true);
  });
});
