import { expect } from 'chai';
import { once } from 'node:events';
import { connect } from 'node:net';
import { createMemoryLogger } from '../../src/log/logger.ts';
import { Redactor } from '../../src/log/redact.ts';
import { dispatchCommand } from '../../src/commands/dispatch.ts';
import { startBridgeServer, type RunningBridge } from '../../src/trigger/server.ts';
import { nonEmptyVariables, pipelineVariables } from '../../src/commands/variables.ts';
import { deliver, deliverOversize, SECRET } from './http-client.ts';
import { MemoryGitLab } from './memory-gitlab.ts';
import { noteHook } from './note-hook.ts';

const LIMIT = 64 * 1024;

/** An authenticated delivery that declares `length` bytes, sends ten, and stalls. */
async function stalledBody(baseUrl: string, length: number): Promise<{ answer: Promise<string> }> {
  const url = new URL(baseUrl);
  const socket = connect({ host: url.hostname, port: Number(url.port) });
  await once(socket, 'connect');
  socket.write(
    `POST /webhook HTTP/1.1\r\nHost: x\r\nX-Gitlab-Token: ${SECRET}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${length}\r\n\r\n{"object_k`,
  );
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (text += chunk));
  const answer = new Promise<string>((resolve) => {
    socket.on('close', () => resolve(text));
    socket.on('error', () => resolve(text));
  });
  return { answer };
}

async function bridgeOn(gitlab: MemoryGitLab, queueLimit = 100) {
  const redactor = new Redactor();
  redactor.add(SECRET);
  const { logger, lines } = createMemoryLogger({ redactor, format: 'json', level: 'debug' });
  const deps = {
    gitlab,
    logger,
    minAccessLevel: 30,
    prefix: '/agent',
    start: (r: Parameters<typeof pipelineVariables>[0]) =>
      gitlab.triggerPipeline(r.projectId, r.ref, 't', {
        variables: nonEmptyVariables(pipelineVariables(r)),
      }),
  };
  const bridge = await startBridgeServer(
    {
      port: 0,
      host: '127.0.0.1',
      maxBodyBytes: LIMIT,
      webhookSecret: SECRET,
      queueLimit,
      concurrency: 2,
      shutdownTimeoutMs: 2000,
    },
    {
      logger,
      rules: { prefix: '/agent', self: { id: 99 } },
      handle: (request) => dispatchCommand(deps, request),
    },
  );
  return { bridge, lines };
}

describe('A2 bridge HTTP server (in-memory GitLab)', () => {
  let gitlab: MemoryGitLab;
  let bridge: RunningBridge;
  let lines: string[];

  beforeEach(async () => {
    gitlab = new MemoryGitLab();
    gitlab.members.set(11, 30);
    ({ bridge, lines } = await bridgeOn(gitlab));
  });
  afterEach(() => bridge.close());

  it('GET /healthz answers ok with the queue figures', async () => {
    const response = await fetch(`${bridge.url}/healthz`);
    expect(response.status).to.equal(200);
    expect(await response.json()).to.deep.include({ status: 'ok', queued: 0, running: 0 });
  });

  it('unknown paths are 404 and GET /webhook is 405', async () => {
    expect((await fetch(`${bridge.url}/nope`)).status).to.equal(404);
    expect((await fetch(`${bridge.url}/webhook`)).status).to.equal(405);
  });

  it('a wrong or missing token is 401 and nothing is read or called', async () => {
    const wrong = await deliver(bridge.url, noteHook({ note: '/agent x' }), {
      'x-gitlab-token': 'nope',
    });
    expect(wrong.status).to.equal(401);
    const response = await fetch(`${bridge.url}/webhook`, { method: 'POST', body: '{}' });
    expect(response.status).to.equal(401);
    await bridge.idle();
    expect(gitlab.calls).to.deep.equal([]);
    expect(bridge.counters()).to.include({ unauthorized: 2, accepted: 0 });
    expect(lines.join('\n')).to.not.include(SECRET);
  });

  it('a declared oversize body is 413 before the body is sent', async () => {
    expect(await deliverOversize(bridge.url, 0, LIMIT * 16)).to.equal(413);
  });

  it('a chunked body that grows past the limit is 413 as soon as it does', async () => {
    expect(await deliverOversize(bridge.url, LIMIT * 4)).to.equal(413);
    expect(bridge.counters().tooLarge).to.equal(1);
  });

  it('M5 a command sent with the header `Confidential Note Hook` starts no pipeline, whatever the body says', async () => {
    const result = await deliver(bridge.url, noteHook({ note: '/agent fix the secret bug' }), {
      'x-gitlab-event': 'Confidential Note Hook',
    });
    expect(result.status).to.be.lessThan(300);
    await bridge.idle();
    expect(gitlab.calls).to.not.include('trigger');
    expect(gitlab.pipelines).to.have.length(0);
  });

  const ignored: [string, unknown, Record<string, string>, string][] = [
    ['a non-JSON body', '{oops', {}, 'not-json'],
    [
      'another event kind',
      { object_kind: 'push' },
      { 'x-gitlab-event': 'Push Hook' },
      'not-a-note-event',
    ],
    ['a broken note event', { object_kind: 'note' }, {}, 'invalid-payload'],
    ['an ordinary comment', noteHook({ note: 'LGTM' }), {}, 'not-a-command'],
    ['a command in a code block', noteHook({ note: '```\n/agent x\n```' }), {}, 'not-a-command'],
    ['a system note', noteHook({ note: '/agent x', system: true }), {}, 'system-note'],
  ];
  for (const [what, payload, headers, reason] of ignored) {
    it(`answers 200 "ignored" for ${what}, without API calls`, async () => {
      const result = await deliver(bridge.url, payload, headers);
      expect(result).to.deep.equal({ status: 200, body: { status: 'ignored', reason } });
      expect(gitlab.calls).to.deep.equal([]);
    });
  }

  it('accepts a command with 202 and handles it after answering', async () => {
    const result = await deliver(bridge.url, noteHook({ note: '/agent fix the typo' }));
    expect(result).to.deep.equal({ status: 202, body: { status: 'accepted', command: 'run' } });
    await bridge.idle();
    expect(gitlab.pipelines).to.have.length(1);
    expect(bridge.counters()).to.include({ accepted: 1, handled: 1, failed: 0 });
  });

  it('a full queue drops further commands with a 200 and a warning', async () => {
    await bridge.close();
    ({ bridge, lines } = await bridgeOn(gitlab, 1));
    // long enough that the queue cannot drain while the five arrive, even on a loaded machine
    gitlab.triggerDelayMs = 600;
    const results = await Promise.all(
      [1, 2, 3, 4, 5].map((n) => deliver(bridge.url, noteHook({ note: '/agent x', noteId: n }))),
    );
    expect(results.every((r) => r.status === 200 || r.status === 202)).to.equal(true);
    expect(
      results.some((r) => r.body.status === 'dropped'),
      JSON.stringify(results),
    ).to.equal(true);
    await bridge.idle();
    expect(
      lines.some((l) => l.includes('command dropped') && l.includes('"reason":"queue full"')),
    ).to.equal(true);
  });

  it("issue 19 §8: slow bodies holding the whole body budget are cut off (408), so a delivery is answered within GitLab's 10 s", async () => {
    const slow = await Promise.all(
      Array.from({ length: 16 }, () => stalledBody(bridge.url, LIMIT)),
    );
    const started = Date.now();
    const result = await deliver(bridge.url, noteHook({ note: '/agent fix it' }));
    const waitedMs = Date.now() - started;
    expect(result.status).to.equal(202);
    expect(waitedMs).to.be.below(10_000);
    const answers = await Promise.all(slow.map((s) => s.answer));
    expect(answers.every((a) => a.startsWith('HTTP/1.1 408'))).to.equal(true);
  });

  it('graceful shutdown finishes accepted commands, then refuses connections', async () => {
    gitlab.triggerDelayMs = 30;
    await deliver(bridge.url, noteHook({ note: '/agent one', noteId: 1, iid: 1 }));
    await deliver(bridge.url, noteHook({ note: '/agent two', noteId: 2, iid: 2 }));
    expect(gitlab.pipelines).to.have.length(0);
    await bridge.close();
    expect(gitlab.pipelines).to.have.length(2);
    let refused = false;
    await fetch(`${bridge.url}/healthz`).catch(() => (refused = true));
    expect(refused).to.equal(true);
  });
});
