// The webhook bridge under floods, as shipped: `node dist/mr-agent.mjs serve`
// as a child process, over real HTTP, against the in-repo GitLab stand-in.
// (a) From a Developer's `/agent` delivery to its pipeline trigger (as the
//     stand-in records it), with 1,200 `/agent` comments by 1,200 distinct
//     non-members delivered just before, against the same with none.
// (b) How long a real delivery takes to be answered with 100 slow 1 MiB
//     bodies in flight, against the same with none.
// Each figure is the median of RUNS runs, each on a fresh bridge process.
// Goal: each within 2 s (the issue's bound; GitLab gives a webhook 10 s).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import {
  seedScenario,
  startGitLabStandIn,
  type GitLabStandIn,
  type Scenario,
} from '../src/testkit/gitlab-server/index.ts';
import type { IssueRec, UserRec } from '../src/testkit/gitlab-server/index.ts';
import { noteHook } from '../test/trigger/note-hook.ts';
import { BIN } from './support/ci-job.ts';
import { median, ms, reportGoal, times, verdictOf } from './support/goals.ts';

const SECRET = 'bench-flood-secret-0123456789';
const RUNS = Number(process.env['BENCH_FLOOD_RUNS'] ?? 3);
const NOISE = 1200;
const SLOW_BODIES = 100;
const GOAL_MS = 2000;

interface Bridge {
  child: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

async function startServe(standIn: GitLabStandIn, s: Scenario, trigger: string): Promise<Bridge> {
  const child = spawn(
    process.execPath,
    [BIN, 'serve', '--port', '0', '--set', 'serve.host=127.0.0.1'],
    {
      env: {
        PATH: process.env['PATH'] ?? '',
        MR_AGENT_GITLAB_URL: standIn.url,
        MR_AGENT_GITLAB_TOKEN: s.botToken.value,
        MR_AGENT_WEBHOOK_SECRET: SECRET,
        MR_AGENT_TRIGGER_TOKEN: trigger,
        MR_AGENT_TRIGGER_PASS_AS: 'variables',
        MR_AGENT_LOG_FORMAT: 'json',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  const port = await new Promise<number>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      if (stderr.length < 1 << 20) stderr += chunk.toString('utf8');
      const match = /"message":"bridge listening","port":(\d+)/.exec(stderr);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', () => reject(new Error(`serve exited early:\n${stderr}`)));
  });
  child.stderr!.resume();
  return {
    child,
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
    },
  };
}

function post(url: string, body: string, agent: Agent): Promise<number> {
  const target = new URL(`${url}/webhook`);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'x-gitlab-event': 'Note Hook',
          'x-gitlab-token': SECRET,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function commentHook(
  standIn: GitLabStandIn,
  s: Scenario,
  on: IssueRec,
  author: UserRec,
  text: string,
): string {
  const note = standIn.model.addNote({ on, body: text, authorId: author.id });
  return JSON.stringify(
    noteHook({
      note: text,
      noteId: note.id,
      user: { id: author.id, username: author.username },
      projectId: s.project.id,
      defaultBranch: s.project.defaultBranch,
      on: 'issue',
      iid: on.iid,
      discussionId: note.discussionId,
    }),
  );
}

/** Resolves with the time the stand-in recorded a triggered pipeline for `task`. */
async function pipelineStarted(standIn: GitLabStandIn, task: string, limitMs = 30_000) {
  const until = performance.now() + limitMs;
  while (performance.now() < until) {
    const found = standIn.model.pipelines.some(
      (p) => p.source === 'trigger' && p.variables['MR_AGENT_TASK'] === task,
    );
    if (found) return performance.now();
    await new Promise((r) => setTimeout(r, 2));
  }
  throw new Error(`no pipeline for "${task}" within ${limitMs} ms`);
}

/** A Developer's command: from sending its delivery to its pipeline trigger, after `noise` strangers. */
async function developerCommand(
  standIn: GitLabStandIn,
  s: Scenario,
  trigger: string,
  strangers: readonly UserRec[],
  run: number,
): Promise<number> {
  const bridge = await startServe(standIn, s, trigger);
  const noiseAgent = new Agent({ keepAlive: true, maxSockets: 64 });
  const ownAgent = new Agent({ keepAlive: false });
  try {
    const issue = standIn.model.createIssue({
      project: s.project,
      title: `bench ${run} ${strangers.length}`,
      authorId: s.maintainer.id,
    });
    const noise = strangers.map((stranger, i) =>
      commentHook(standIn, s, issue, stranger, `/agent do thing ${i}`),
    );
    const task = `fix the importer ${run} after ${strangers.length}`;
    const own = commentHook(standIn, s, issue, s.developer, `/agent ${task}`);
    const sent = noise.map((body) => post(bridge.url, body, noiseAgent));
    const start = performance.now();
    const started = pipelineStarted(standIn, task);
    await post(bridge.url, own, ownAgent);
    const elapsed = (await started) - start;
    await Promise.all(sent);
    if (strangers.length > 0) {
      console.log(
        `    run ${run}: trigger after ${ms(elapsed)}; all ${strangers.length} answered after ${ms(performance.now() - start)}`,
      );
    }
    return elapsed;
  } finally {
    noiseAgent.destroy();
    ownAgent.destroy();
    await bridge.stop();
  }
}

/** An authenticated delivery that declares 1 MiB and sends a few bytes a second. */
async function slowBody(url: string): Promise<Socket> {
  const target = new URL(url);
  const socket = connect({ host: target.hostname, port: Number(target.port) });
  await once(socket, 'connect');
  socket.write(
    `POST /webhook HTTP/1.1\r\nHost: x\r\nX-Gitlab-Token: ${SECRET}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${1 << 20}\r\n\r\n{"object_k`,
  );
  const drip = setInterval(() => socket.write('x'.repeat(64)), 200);
  socket.on('close', () => clearInterval(drip));
  socket.on('error', () => clearInterval(drip));
  socket.resume();
  return socket;
}

/** A real delivery: from sending it to its answer, with `slow` slow bodies in flight. */
async function answerTime(
  standIn: GitLabStandIn,
  s: Scenario,
  trigger: string,
  slow: number,
  run: number,
): Promise<number> {
  const bridge = await startServe(standIn, s, trigger);
  const agent = new Agent({ keepAlive: false });
  const sockets: Socket[] = [];
  try {
    for (let i = 0; i < slow; i++) sockets.push(await slowBody(bridge.url));
    const issue = standIn.model.createIssue({
      project: s.project,
      title: `bench answer ${run} ${slow}`,
      authorId: s.maintainer.id,
    });
    const body = commentHook(standIn, s, issue, s.developer, `/agent fix it ${run} ${slow}`);
    const start = performance.now();
    const status = await post(bridge.url, body, agent);
    const elapsed = performance.now() - start;
    if (status !== 202) throw new Error(`the real delivery was answered ${status}, not 202`);
    return elapsed;
  } finally {
    for (const socket of sockets) socket.destroy();
    agent.destroy();
    await bridge.stop();
  }
}

const standIn = await startGitLabStandIn();
try {
  const s = await seedScenario(standIn.model);
  const trigger = standIn.model.addTriggerToken(s.project, s.maintainer.id).value;
  const strangers = Array.from({ length: NOISE }, (_, i) =>
    standIn.model.addUser({ username: `stranger${i}`, name: `Stranger ${i}` }),
  );
  console.log(`bridge under floods (node ${process.version}, ${RUNS} runs each, dist/ serve)`);

  const quiet: number[] = [];
  const flooded: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    quiet.push(await developerCommand(standIn, s, trigger, [], run));
    flooded.push(await developerCommand(standIn, s, trigger, strangers, run));
  }
  const listings = standIn.requests.entries.filter((r) =>
    /\/members\/all$/.test(r.path.split('?')[0]!),
  ).length;
  const single = standIn.requests.entries.filter((r) =>
    /\/members\/all\/\d+$/.test(r.path.split('?')[0]!),
  ).length;
  const [q, f] = [median(quiet), median(flooded)];
  console.log(`  /agent → pipeline trigger, no noise:               median ${ms(q)}`);
  console.log(`  /agent → pipeline trigger, ${NOISE} strangers before: median ${ms(f)}`);
  console.log(
    `  members listings over all ${2 * RUNS} bridges: ${listings}; single look-ups: ${single}`,
  );
  reportGoal({
    goal: `Developer /agent → pipeline trigger with ${NOISE} distinct non-members just before ≤ 2 s`,
    figure: ms(f),
    baseline: `${ms(q)} (no noise)`,
    ratio: times(f / q),
    verdict: verdictOf(f <= GOAL_MS),
  });

  const calm: number[] = [];
  const slowed: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    calm.push(await answerTime(standIn, s, trigger, 0, run));
    slowed.push(await answerTime(standIn, s, trigger, SLOW_BODIES, run));
  }
  const [c, w] = [median(calm), median(slowed)];
  console.log(`  delivery answered, no slow bodies:                 median ${ms(c)}`);
  console.log(`  delivery answered, ${SLOW_BODIES} slow 1 MiB bodies in flight: median ${ms(w)}`);
  reportGoal({
    goal: `a real delivery answered with ${SLOW_BODIES} slow 1 MiB bodies in flight ≤ 2 s`,
    figure: ms(w),
    baseline: `${ms(c)} (no slow bodies)`,
    ratio: times(w / c),
    verdict: verdictOf(w <= GOAL_MS),
  });
} finally {
  await standIn.close();
}
