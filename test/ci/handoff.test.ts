import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HANDOFF_FILE, readHandoff, writeHandoff, type CiHandoff } from '../../src/ci/handoff.ts';
import { requestFromTrigger } from '../../src/ci/request.ts';
import { excludeAgentFolders } from '../../src/ci/workspace.ts';
import { ConfigError, ExternalServiceError } from '../../src/errors/errors.ts';
import { fillDiskAfter } from '../support/disk-full.ts';
import { action, planWith } from '../support/plans.ts';

describe('ci/handoff, ci/request, ci/workspace', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'mr-agent-ci-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const handoff: CiHandoff = {
    version: 1,
    request: {
      source: 'note',
      command: 'run',
      task: 'fix the typo',
      target: { kind: 'merge_request', iid: 12 },
      noteId: 555,
      userId: 9,
    },
    environment: 'python',
    from: { pipelineId: 1001, jobId: 7, jobUrl: 'https://gitlab.example.com/j/7' },
    task: { id: 'task-1', text: 'fix the typo' },
    runId: 'p1001-j7-abc',
    noteId: '4242',
    work: { gathered: { request: { title: 'x' } }, plan: planWith([action('t1', 'Fix the typo')]) },
  };

  it('issue 17 #7 the hand-off is written by the one atomic writer: a full disk keeps the old file and names it', async () => {
    await writeHandoff(dir, handoff);
    const disk = fillDiskAfter(0);
    try {
      const error = await writeHandoff(dir, { ...handoff, runId: 'other' }).catch(
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(ExternalServiceError);
      expect((error as Error).message)
        .to.contain('ci-handoff.json')
        .and.contain('ENOSPC');
    } finally {
      disk.restore();
    }
    expect((await readHandoff(dir)).runId).to.equal(handoff.runId);
  });

  it('B2 the run job reads back exactly what the plan job handed over', async () => {
    await writeHandoff(dir, handoff);

    expect(await readHandoff(dir)).to.deep.equal(handoff);
  });

  it("B2 a run job without the plan job's artifacts says where the hand-off should come from", async () => {
    let error: unknown;
    try {
      await readHandoff(dir);
    } catch (e) {
      error = e;
    }

    expect(error).to.be.instanceOf(ConfigError);
    expect((error as ConfigError).where).to.equal(HANDOFF_FILE);
    expect((error as ConfigError).hint).to.contain('$PARENT_PIPELINE_ID');
  });

  it('a broken hand-off names the bad field', async () => {
    mkdirSync(path.join(dir, '.mr-agent'));
    writeFileSync(
      path.join(dir, HANDOFF_FILE),
      JSON.stringify({ ...handoff, environment: 'rust' }),
    );

    let error: unknown;
    try {
      await readHandoff(dir);
    } catch (e) {
      error = e;
    }

    expect((error as ConfigError).problems.join('\n')).to.contain('environment');
  });

  it('A2/A4 turns the bridge and manual variables into one request shape', () => {
    expect(
      requestFromTrigger({
        kind: 'note',
        noteId: 5,
        command: 'plan',
        task: 'x',
        target: { kind: 'issue', iid: 3 },
        triggeredBy: 9,
      }),
    ).to.deep.equal({
      source: 'note',
      command: 'plan',
      task: 'x',
      target: { kind: 'issue', iid: 3 },
      noteId: 5,
      userId: 9,
    });
    expect(
      requestFromTrigger({
        kind: 'manual',
        source: 'manual',
        task: 'y',
        target: { kind: 'none' },
        triggeredBy: undefined,
      }),
    ).to.deep.equal({ source: 'manual', command: 'run', task: 'y', target: { kind: 'none' } });
  });

  it('keeps .mr-agent/ and the dependency caches out of git status, once', async () => {
    execFileSync('git', ['init', '-q'], { cwd: dir });
    mkdirSync(path.join(dir, '.mr-agent-cache/pip'), { recursive: true });
    writeFileSync(path.join(dir, '.mr-agent-cache/pip/x'), 'x');
    mkdirSync(path.join(dir, '.mr-agent'));
    writeFileSync(path.join(dir, '.mr-agent/result.json'), '{}');
    writeFileSync(path.join(dir, 'app.py'), 'print(1)\n');

    expect(await excludeAgentFolders(dir)).to.equal(true);
    await excludeAgentFolders(dir);

    const status = execFileSync('git', ['status', '--porcelain', '-uall'], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(status.trim()).to.equal('?? app.py');
    const exclude = readFileSync(path.join(dir, '.git/info/exclude'), 'utf8');
    expect(exclude.match(/\.mr-agent-cache\//g)).to.have.length(1);
  });

  it('leaves a folder that is not a git checkout alone', async () => {
    expect(await excludeAgentFolders(dir)).to.equal(false);
  });
});
