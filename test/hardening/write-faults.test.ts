import { expect } from 'chai';
import { shellCheckout } from '../../src/shell/checkout-port.ts';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FakeClock } from '../../src/core/clock.ts';
import { parseMarker } from '../../src/report/marker.ts';
import { GitLabNoteTarget } from '../../src/gitlab/note-target.ts';
import { createMemoryLogger, createSilentLogger } from '../../src/log/logger.ts';
import { Redactor } from '../../src/log/redact.ts';
import { ExecaShell } from '../../src/shell/execa-shell.ts';
import { deliver, type DeliveryInput } from '../../src/phases/deliver/deliver.ts';
import { ProgressPublisher } from '../../src/report/progress/publisher.ts';
import { initialProgress, setPhaseDetail, startPhase } from '../../src/core/progress/updates.ts';
import type { Fault } from '../../src/testkit/gitlab-server/index.ts';
import { startWorld } from '../gitlab/world.ts';
import { ManualScheduler } from '../support/manual-scheduler.ts';
import { startBridgeWorld } from '../trigger/bridge-world.ts';
import { deliver as deliverHook } from '../trigger/http-client.ts';
import { FaultMatrix } from './faults/matrix.ts';
import { recordFigures } from './support/figures.ts';

/**
 * Issue 18 §5 (SPEC H0): the stand-in's scenarios replayed with a fault on
 * every write path mr-agent has — the progress note, a reply, the 👀 award
 * and the pipeline trigger of the webhook bridge, merge request creation,
 * the push and the patch note. Each write must happen exactly once and the
 * operation must succeed, whether GitLab lost the answer after carrying the
 * write out (a proxy's 502, a dropped connection) or failed before it.
 */
interface WriteFault {
  name: string;
  fault: Omit<Fault, 'method' | 'path'>;
}

const HTML_502 = '<html><body><h1>502 Bad Gateway</h1></body></html>';
const FAULTS: readonly WriteFault[] = [
  { name: '502 after the write', fault: { status: 502, body: HTML_502, afterHandling: true } },
  { name: 'no answer after the write', fault: { hang: true, afterHandling: true } },
  { name: '502 before the write', fault: { status: 502, body: HTML_502 } },
];

/** The fault was met: some request was answered 502 or not at all. */
function faultHit(standIn: { requests: { entries: { status: number }[] } }): void {
  const hit = standIn.requests.entries.some((e) => e.status === 0 || e.status === 502);
  expect(hit, 'the fault was hit').to.equal(true);
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/** A world with smart-HTTP git, a checkout of `branch` with one change, and delivery's input. */
async function deliveryWorld(branch: string) {
  const w = await startWorld({ timeoutMs: 1000 }, { gitHttp: true, pathEnv: process.env.PATH });
  const work = await mkdtemp(path.join(tmpdir(), 'write-faults-'));
  const dir = path.join(work, 'checkout');
  git(work, 'clone', '-q', '-b', branch, `file://${w.s.project.repoDir}`, dir);
  await writeFile(path.join(dir, 'src/farewell.js'), 'export const farewell = 1;\n');
  const project = await w.gitlab.getProject(w.s.project.id);
  const redactor = new Redactor();
  const input = (extra: Partial<DeliveryInput>): DeliveryInput => ({
    repoDir: dir,
    shell: new ExecaShell(),
    checkout: shellCheckout,
    gitlab: w.gitlab,
    project,
    target: { kind: 'branch', branch },
    notes: new GitLabNoteTarget(w.gitlab, project.id, { type: 'merge_request', iid: 1 }),
    token: w.s.botToken.value,
    hostEnv: process.env,
    commit: { title: 'Add farewell', author: { name: 'mr-agent', email: 'a@example.invalid' } },
    branchPrefix: 'mr-agent/',
    marker: { job: '88', pipeline: '8', task: 't' },
    redactor,
    logger: createMemoryLogger({ redactor }).logger,
    ...extra,
  });
  return {
    w,
    dir,
    input,
    head: (ref: string) => git(w.s.project.repoDir, 'rev-parse', ref),
    close: async () => {
      await w.close();
      await rm(work, { recursive: true, force: true });
    },
  };
}

async function progressNoteCell(fault: WriteFault): Promise<string> {
  const w = await startWorld({ timeoutMs: 1000 });
  try {
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const scheduler = new ManualScheduler(clock);
    w.standIn.faults.add({ ...fault.fault, method: 'POST', path: /\/notes$/ });
    const publisher = await ProgressPublisher.start(
      {
        target: new GitLabNoteTarget(w.gitlab, w.s.project.id, { type: 'merge_request', iid: 1 }),
        redactor: new Redactor(),
        logger: createSilentLogger(),
        clock,
        scheduler,
      },
      startPhase(
        initialProgress({ taskId: 't', title: 'T', startedAt: 0, jobId: '5', pipelineId: '6' }),
        'execution',
        0,
      ),
    );
    publisher.update((s) => setPhaseDetail(s, 'execution', 'working'));
    await scheduler.advance(1500);
    expect(await publisher.finish({ state: 'complete', summary: 'done' })).to.equal(true);
    const notes = w.standIn.model.notes.filter((n) => n.authorId === w.s.bot.id);
    expect(notes, 'one progress note').to.have.length(1);
    expect(parseMarker(notes[0]!.body)?.state).to.equal('complete');
    faultHit(w.standIn);
    return '✓ 1 note, final "complete"';
  } finally {
    await w.close();
  }
}

async function replyCell(fault: WriteFault): Promise<string> {
  const w = await startWorld({ timeoutMs: 1000 });
  try {
    const question = w.standIn.model.addNote({
      on: w.standIn.model.mergeRequests[0]!,
      body: '/agent status',
      authorId: w.s.developer.id,
    });
    w.standIn.faults.add({ ...fault.fault, method: 'POST', path: /\/discussions\/[^/]+\/notes$/ });
    const target = new GitLabNoteTarget(w.gitlab, w.s.project.id, {
      type: 'merge_request',
      iid: 1,
    });
    await target.createNote('Nothing is running.', { replyTo: String(question.id) });
    const replies = w.standIn.model.notes.filter(
      (n) => n.discussionId === question.discussionId && n.authorId === w.s.bot.id,
    );
    expect(replies, 'one reply').to.have.length(1);
    faultHit(w.standIn);
    return '✓ 1 reply';
  } finally {
    await w.close();
  }
}

async function bridgeCell(fault: WriteFault, path: RegExp): Promise<string> {
  const w = await startBridgeWorld();
  try {
    w.standIn.faults.add({ ...fault.fault, method: 'POST', path });
    const { hook, note } = w.comment(w.s.mergeRequest, w.s.developer, '/agent fix the typo');
    expect((await deliverHook(w.bridges[0]!.url, hook)).status).to.equal(202);
    await w.idle();
    expect(w.triggerPipelines(), 'one pipeline').to.have.length(1);
    const awards = w.standIn.model.awards.filter((a) => a.noteId === note.id);
    expect(awards, 'one 👀').to.have.length(1);
    faultHit(w.standIn);
    return '✓ 1 👀, 1 pipeline';
  } finally {
    await w.close();
  }
}

async function mergeRequestCell(fault: WriteFault): Promise<string> {
  const d = await deliveryWorld('main');
  try {
    d.w.standIn.faults.add({ ...fault.fault, method: 'POST', path: /\/merge_requests$/ });
    const issue = await d.w.gitlab.getIssue(d.w.s.project.id, 1);
    const result = await deliver(d.input({ target: { kind: 'issue', issue } }));
    expect(result.status).to.equal('pushed');
    const mrs = d.w.standIn.model.mergeRequests.filter((m) =>
      m.sourceBranch.startsWith('mr-agent/'),
    );
    expect(mrs, 'one merge request').to.have.length(1);
    faultHit(d.w.standIn);
    return '✓ pushed, 1 draft MR';
  } finally {
    await d.close();
  }
}

async function pushCell(fault: WriteFault): Promise<string> {
  const d = await deliveryWorld('feature/greeting');
  try {
    const before = d.head('feature/greeting');
    d.w.standIn.faults.add({
      ...fault.fault,
      git: true,
      method: 'POST',
      path: /git-receive-pack$/,
    });
    const result = await deliver(d.input({}));
    expect(result).to.include({ status: 'pushed', rebased: false });
    expect(d.head('feature/greeting^'), 'one commit on top').to.equal(before);
    faultHit(d.w.standIn);
    return '✓ pushed once, no rebase';
  } finally {
    await d.close();
  }
}

async function patchNoteCell(fault: WriteFault): Promise<string> {
  const d = await deliveryWorld('feature/greeting');
  try {
    d.w.standIn.model.protectBranch(d.w.s.project, '*');
    d.w.standIn.faults.add({ ...fault.fault, method: 'POST', path: /\/notes$/ });
    const result = await deliver(d.input({}));
    expect(result.status).to.equal('patch-posted');
    const patches = d.w.standIn.model.notes.filter((n) => parseMarker(n.body)?.kind === 'patch');
    expect(patches, 'one patch note').to.have.length(1);
    faultHit(d.w.standIn);
    return '✓ 1 patch note';
  } finally {
    await d.close();
  }
}

describe('hardening: a fault on every write path — each write exactly once (issue 18 §5, H0)', function () {
  this.timeout(120_000);
  const matrix = new FaultMatrix();
  after(() =>
    recordFigures('write faults', [`${matrix.size} cells, all passing`, ...matrix.render()]),
  );

  const paths: [string, (fault: WriteFault) => Promise<string>][] = [
    ['progress note (POST)', progressNoteCell],
    ['reply in a thread', replyCell],
    ['bridge 👀 award', (f) => bridgeCell(f, /\/award_emoji$/)],
    ['bridge pipeline trigger', (f) => bridgeCell(f, /\/trigger\/pipeline$/)],
    ['merge request creation', mergeRequestCell],
    ['git push', pushCell],
    ['patch note', patchNoteCell],
  ];
  for (const fault of FAULTS) {
    for (const [where, cell] of paths) {
      it(`H0 ${fault.name} on the ${where}: done exactly once`, async () => {
        matrix.set(fault.name, where, await cell(fault));
      });
    }
  }
});
