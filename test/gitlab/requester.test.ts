import { expect } from 'chai';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hintOf } from '../../src/errors/catalog.ts';
import { ExternalServiceError } from '../../src/errors/errors.ts';
import { createGitLabClient } from '../../src/gitlab/gitbeaker-adapter.ts';
import { parseRetryAfter } from '../../src/gitlab/requester.ts';
import { FakeClock } from '../../src/core/clock.ts';
import { startWorld, type World } from './world.ts';

const NOTES = /\/merge_requests\/1\/notes$/;

describe('gitlab/requester (H0 retries through the Clock)', () => {
  let w: World;
  beforeEach(async () => {
    w = await startWorld();
  });
  afterEach(() => w.close());

  const list = () => w.gitlab.listNotes(w.s.project.id, { type: 'merge_request', iid: 1 });

  it('H0 waits for Retry-After on 429, then succeeds', async () => {
    w.standIn.faults.add({ path: NOTES, status: 429, retryAfter: 7 });
    expect(await list()).to.deep.equal([]);
    expect(w.clock.sleeps).to.deep.equal([7000]);
  });

  it('H0 reads an HTTP-date Retry-After', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:03 GMT', now)).to.equal(3000);
    expect(parseRetryAfter('2', now)).to.equal(2000);
    expect(parseRetryAfter(null, now)).to.equal(undefined);
  });

  it('H0 backs off exponentially on 5xx (1 s, 2 s) and succeeds', async () => {
    w.standIn.faults.add({ path: NOTES, status: 500, times: 2 });
    await list();
    expect(w.clock.sleeps).to.deep.equal([1000, 2000]);
  });

  it('H0 gives up after the retries with an ExternalServiceError carrying the status', async () => {
    w.standIn.faults.add({ path: NOTES, status: 503, times: Infinity });
    const error = await list().catch((e: unknown) => e);
    expect(error).to.be.instanceOf(ExternalServiceError);
    expect((error as ExternalServiceError).status).to.equal(503);
    expect((error as Error).message).to.match(/answered HTTP 503 after 5 attempts/);
    expect(w.clock.sleeps).to.deep.equal([1000, 2000, 4000, 8000]);
  });

  it('H0 does not retry a 403 and says what to check', async () => {
    w.standIn.faults.add({ path: NOTES, status: 403 });
    const error = (await list().catch((e: unknown) => e)) as ExternalServiceError;
    expect(error.status).to.equal(403);
    expect(hintOf(error)).to.contain('role');
    expect(w.clock.sleeps).to.deep.equal([]);
  });

  it('H0 a hanging GET times out and is retried; a hanging POST is repeated only after checking it did not land', async () => {
    await w.close();
    w = await startWorld({ timeoutMs: 400 });
    w.standIn.faults.add({ method: 'GET', path: NOTES, hang: true });
    expect(await list()).to.deep.equal([]);
    expect(w.clock.sleeps).to.deep.equal([1000]);

    w.standIn.faults.add({ method: 'POST', path: NOTES, hang: true });
    await w.gitlab.createNote(w.s.project.id, { type: 'merge_request', iid: 1 }, 'hello');
    expect(w.standIn.model.notes.map((n) => n.body)).to.deep.equal(['hello']);
    const notes = w.standIn.requests.entries.filter((e) => NOTES.test(e.path));
    expect(notes.map((e) => `${e.method} ${e.status}`)).to.deep.equal([
      'GET 0',
      'GET 200',
      'POST 0',
      'GET 200',
      'POST 201',
    ]);
  });

  it('H0 a 5xx to a POST is not repeated by the transport (it may have been carried out)', async () => {
    w.standIn.faults.add({ method: 'POST', path: NOTES, status: 502, times: Infinity });
    w.standIn.faults.add({ method: 'GET', path: NOTES, status: 500, times: Infinity });
    const error = (await w.gitlab
      .createNote(w.s.project.id, { type: 'merge_request', iid: 1 }, 'hello')
      .catch((e: unknown) => e)) as ExternalServiceError;
    expect(error.status).to.equal(502);
    expect(error.message).to.match(/answered HTTP 502: /);
    expect(w.standIn.requests.count({ method: 'POST' })).to.equal(1);
  });

  it('H0 a 429 asking to wait longer than allowed fails at once, clearly', async () => {
    w.standIn.faults.add({ path: NOTES, status: 429, retryAfter: 3600 });
    const error = (await list().catch((e: unknown) => e)) as ExternalServiceError;
    expect(error.status).to.equal(429);
    expect(w.clock.sleeps).to.deep.equal([]);
  });

  it('M5 a wrong token is a 401 ExternalServiceError with a hint, never retried', async () => {
    const error = (await w
      .clientFor('glpat-wrong')
      .currentUser()
      .catch((e: unknown) => e)) as ExternalServiceError;
    expect(error.status).to.equal(401);
    expect(error.message).to.contain('GET /api/v4/user answered HTTP 401: 401 Unauthorized');
    expect(hintOf(error)).to.contain('token');
    expect(error.message).not.to.contain('glpat-wrong');
  });

  it('H0 a refused connection is retried, POST included, then reported as a network error', async () => {
    const clock = new FakeClock();
    const closed = w.standIn.url;
    await w.standIn.close();
    const client = createGitLabClient({ url: closed, token: 'x', clock });
    const error = (await client
      .createNote(1, { type: 'issue', iid: 1 }, 'x')
      .catch((e: unknown) => e)) as ExternalServiceError;
    expect(error).to.be.instanceOf(ExternalServiceError);
    expect(error.message).to.match(
      /^POST \/api\/v4\/projects\/1\/issues\/1\/notes failed after 5 attempt\(s\): network error/,
    );
    w = await startWorld();
    expect(clock.sleeps).to.deep.equal([1000, 2000, 4000, 8000]);
  });
  it('H0 a read GitLab redirects is followed on the same origin with the token, to another origin without it', async () => {
    // same origin: the fault is used up, the stand-in serves the repeated read (only with the token)
    w.standIn.faults.add({ method: 'GET', path: NOTES, redirectTo: w.standIn.url });
    expect(await list()).to.deep.equal([]);
    // another origin (object storage, a mirror): it must never see the bot's token
    const seen: IncomingHttpHeaders[] = [];
    const elsewhere = createServer((req, res) => {
      seen.push(req.headers);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('[]');
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    try {
      const origin = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
      w.standIn.faults.add({ method: 'GET', path: NOTES, redirectTo: origin });
      expect(await list()).to.deep.equal([]);
      expect(seen).to.have.length(1);
      expect(seen[0]).not.to.have.property('private-token');
      expect(JSON.stringify(seen[0])).not.to.contain(w.s.botToken.value);
    } finally {
      elsewhere.closeAllConnections();
      await new Promise((resolve) => elsewhere.close(resolve));
    }
  });

  it('H0 a redirect answering a POST is not followed: the write fails clearly, once', async () => {
    w.standIn.faults.add({ method: 'POST', path: NOTES, redirectTo: 'http://127.0.0.1:9' });
    const error = (await w.gitlab
      .createNote(w.s.project.id, { type: 'merge_request', iid: 1 }, 'hello')
      .catch((e: unknown) => e)) as ExternalServiceError;
    expect(error).to.be.instanceOf(ExternalServiceError);
    expect(error.status).to.equal(302);
    expect(w.standIn.requests.count({ method: 'POST' })).to.equal(1);
  });

  it('H0 an answer broken off mid-body: a read is repeated; a write is checked before it is sent again', async () => {
    w.standIn.faults.add({ method: 'GET', path: NOTES, cutOff: true });
    expect(await list()).to.deep.equal([]);
    expect(w.clock.sleeps).to.deep.equal([1000]);

    w.standIn.faults.add({ method: 'POST', path: NOTES, cutOff: true });
    await w.gitlab.createNote(w.s.project.id, { type: 'merge_request', iid: 1 }, 'hello');
    // the note landed before the answer broke off: it is found, not posted twice
    expect(w.standIn.model.notes.map((n) => n.body)).to.deep.equal(['hello']);
  });
});
