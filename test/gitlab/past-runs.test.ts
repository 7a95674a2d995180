import { expect } from 'chai';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { zipSync } from 'fflate';
import { GitLabNoteTarget } from '../../src/gitlab/note-target.ts';
import { extractStateDir, findPastRunNotes, restorePastRuns } from '../../src/gitlab/past-runs.ts';
import type { Noteable } from '../../src/core/gitlab-port.ts';
import { renderMarker } from '../../src/report/marker.ts';
import { startWorld, type World } from './world.ts';

describe('gitlab/past-runs (I2, I3 history across pipelines)', () => {
  let w: World;
  let dir: string;
  const on: Noteable = { type: 'merge_request', iid: 1 };
  beforeEach(async () => {
    w = await startWorld();
    dir = await mkdtemp(path.join(tmpdir(), 'past-runs-'));
  });
  afterEach(async () => {
    await w.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Run 1 in pipeline A: its progress note (through the API) and its `.mr-agent/` artifact. */
  async function runOne(state: string, files: Record<string, string> = {}) {
    const { pipeline, jobs } = await w.standIn.model.createPipeline({
      project: w.s.project,
      ref: 'feature/greeting',
      userId: w.s.bot.id,
      source: 'trigger',
    });
    const job = jobs[0]!;
    const marker = renderMarker({
      kind: 'progress',
      job: String(job.id),
      pipeline: String(pipeline.id),
      task: 't1',
      state,
    });
    const note = await new GitLabNoteTarget(w.gitlab, w.s.project.id, on).createNote(
      `${marker}\n## mr-agent\nPlan: 2/3 done`,
    );
    w.standIn.model.setJobArtifacts(job.id, files);
    return { job, note };
  }

  it('I2 run 2 in a fresh folder reads run 1’s history through the API', async () => {
    const run1 = await runOne('success', {
      '.mr-agent/planning_history/t1.jsonl': '{"type":"plan"}\n',
      '.mr-agent/metadata.json': '{"phases":{}}',
      'other/ignored.txt': 'not state',
    });

    const runs = await restorePastRuns({
      gitlab: w.gitlab,
      project: w.s.project.id,
      on,
      botUserId: w.s.bot.id,
      into: dir,
    });

    expect(runs).to.have.length(1);
    expect(runs[0]).to.include({ source: 'restored', interrupted: false });
    expect(runs[0]!.marker).to.include({ job: String(run1.job.id), task: 't1', state: 'success' });
    const restored = path.join(dir, `job-${run1.job.id}`);
    expect(runs[0]!.dir).to.equal(restored);
    expect(await readFile(path.join(restored, 'planning_history/t1.jsonl'), 'utf8')).to.equal(
      '{"type":"plan"}\n',
    );
    expect((await readdir(restored)).sort()).to.deep.equal(['metadata.json', 'planning_history']);
  });

  it('issue 22 downloads earlier runs’ artifacts at once', async () => {
    const run1 = await runOne('success', { '.mr-agent/a.json': '{}' });
    const run2 = await runOne('success', { '.mr-agent/b.json': '{}' });
    w.standIn.faults.add({
      method: 'GET',
      path: `/projects/${w.s.project.id}/jobs/${run1.job.id}/artifacts`,
      hang: true,
    });
    w.standIn.requests.clear();
    const restoring = restorePastRuns({
      gitlab: w.gitlab,
      project: w.s.project.id,
      on,
      botUserId: w.s.bot.id,
      into: dir,
    }).catch((e: unknown) => e);
    const artifacts = () => [
      ...new Set(
        w.standIn.requests.entries.filter((e) => e.path.endsWith('/artifacts')).map((e) => e.path),
      ),
    ];
    for (let i = 0; i < 200 && artifacts().length < 2; i++)
      await new Promise((r) => setTimeout(r, 10));

    expect(artifacts().map((p) => p.split('/').at(-2))).to.have.members([
      String(run1.job.id),
      String(run2.job.id),
    ]);
    await w.close();
    await restoring;
  });

  it('I2 with run 1’s artifact deleted, falls back to the note (marker and body)', async () => {
    const run1 = await runOne('failed', { '.mr-agent/metadata.json': '{}' });
    w.standIn.model.deleteJobArtifacts(run1.job.id);

    const runs = await restorePastRuns({
      gitlab: w.gitlab,
      project: w.s.project.id,
      on,
      botUserId: w.s.bot.id,
      into: dir,
    });

    expect(runs[0]).to.include({ source: 'note-only', dir: undefined });
    expect(runs[0]!.reason).to.equal(`job ${run1.job.id}'s artifacts expired or were deleted`);
    expect(runs[0]!.note.body).to.contain('Plan: 2/3 done');
    expect(runs[0]!.marker.state).to.equal('failed');
  });

  it('I3 a run whose marker still says running is reported as interrupted', async () => {
    await runOne('success', { '.mr-agent/a.json': '{}' });
    await runOne('running', { '.mr-agent/b.json': '{}' });
    const runs = await findPastRunNotes({
      gitlab: w.gitlab,
      project: w.s.project.id,
      on,
      botUserId: w.s.bot.id,
    });
    expect(runs.map((r) => [r.marker.state, r.interrupted])).to.deep.equal([
      ['success', false],
      ['running', true],
    ]);
  });

  it('I2 ignores markers in notes by other users, non-progress notes and the current job', async () => {
    const mine = await runOne('success');
    w.standIn.model.addNote({
      on: w.s.mergeRequest,
      body: renderMarker({ kind: 'progress', job: '1', state: 'success' }),
      authorId: w.s.developer.id,
    });
    await w.gitlab.createNote(w.s.project.id, on, renderMarker({ kind: 'replan', job: '2' }));
    const all = await findPastRunNotes({
      gitlab: w.gitlab,
      project: w.s.project.id,
      on,
      botUserId: w.s.bot.id,
    });
    expect(all.map((r) => r.marker.job)).to.deep.equal([String(mine.job.id)]);
    const none = await findPastRunNotes({
      gitlab: w.gitlab,
      project: w.s.project.id,
      on,
      botUserId: w.s.bot.id,
      currentJobId: String(mine.job.id),
    });
    expect(none).to.deep.equal([]);
  });

  it('I2 extraction never writes outside the target folder (zip-slip)', async () => {
    const enc = (t: string) => new TextEncoder().encode(t);
    const zip = zipSync({ '.mr-agent/../../evil.txt': enc('x'), '.mr-agent/ok.txt': enc('ok') });
    expect(await extractStateDir(zip, '.mr-agent', path.join(dir, 'out'))).to.deep.equal([
      'ok.txt',
    ]);
    expect(await readdir(dir)).to.deep.equal(['out']);
  });
});
