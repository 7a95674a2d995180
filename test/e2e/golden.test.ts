import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { runDemo, type DemoResult } from '../../src/demo/run-demo.ts';
import { RunResultFile } from '../../src/report/result-file.ts';
import { expectGolden } from '../support/golden.ts';
import { renderGitLab, visibleText } from '../support/gitlab-markdown.ts';
import { goldenArtifacts, goldenMismatches } from './golden-check.ts';

/** Commands and git see only these host variables (as in a CI job). */
const hostEnv = { PATH: process.env.PATH, HOME: process.env.HOME };

async function demo(sets: string[] = []): Promise<{ result: DemoResult; output: string }> {
  let output = '';
  const result = await runDemo({
    out: { write: (text: string) => (output += text) },
    live: false,
    color: false,
    hostEnv,
    keep: true,
    sets,
  });
  return { result, output };
}

describe('A7 golden end-to-end: `mr-agent demo` on the bundled sample repository', function () {
  this.timeout(120_000);
  let result: DemoResult;
  let output: string;

  before(async () => {
    ({ result, output } = await demo());
  });
  after(async () => {
    if (result) await rm(result.dir, { recursive: true, force: true });
  });

  it('completes with exit code 0; every scripted model reply was used and none was missing', () => {
    expect(result.job.outcome.state, result.job.outcome.summary).to.equal('COMPLETE');
    expect(result.exitCode).to.equal(0);
    expect(result.unusedReplies).to.deep.equal([]);
    expect(result.llmRequests.map((r) => r.outcome)).to.not.include('unexpected');
  });

  it('H1, H2, H4, I1, I4, L3: the final progress note, summary note, Task Note, history JSONL, metadata and result.json match their golden files', async () => {
    const artifacts = await goldenArtifacts(result);
    for (const name of [
      'progress-note.md',
      'summary-note.md',
      'task-note.md',
      'history.jsonl',
      'metadata-phases.json',
      'result.json',
    ])
      await expectGolden(`e2e/${name}`, artifacts[name]!);
    const parsed = RunResultFile.parse(
      JSON.parse(await readText(result.job.reporting.paths.result)),
    );
    expect(parsed).to.include({
      status: 'succeeded',
      state: 'complete',
      exit_code: 0,
      job_id: String(result.jobId),
    });
    expect(parsed.validation.overall).to.equal('passed');
    expect(parsed.validation.commands).to.have.length(1);
    expect(parsed.validation.commands[0]).to.include({
      command: 'npm test',
      exit_code: 0,
      passed: true,
    });
  });

  it('#24 the complete progress note is short as GitLab shows it: state, change and next step first, the rest folded', () => {
    const note = renderGitLab(result.notes.get(result.progressNoteId!)!);
    const lines = visibleText(note);
    expect(lines[0]).to.equal('✅ Done · fix the failing test');
    expect(lines[1]).to.match(
      /^Pushed [0-9a-f]{8} to feature\/slugify · 1 file changed · npm test ✅/,
    );
    expect(lines[2]).to.match(/^Next: review the commit\./);
    expect(note.softBreaks).to.deep.equal([]);
    expect(note.visibleBlocks.has('table') || note.visibleBlocks.has('fence')).to.equal(false);
    // rendered with docs/notes' tool it is 551 px tall (limit 700): about 20 px a line, 12 px a paragraph gap
    expect(lines.length, lines.join('\n')).to.be.at.most(16);
    expect(note.summaries).to.have.length(1);
  });

  it('H3: the fix is one commit on the merge request branch in the bare remote (golden message and diff)', async () => {
    const artifacts = await goldenArtifacts(result);
    await expectGolden('e2e/commit.txt', artifacts['commit.txt']!);
    expect(artifacts['commit.txt']).to.match(/^Branch tip is the commit: true/);
  });

  it("the pushed tree passes its tests; the merge request's commit before it failed them", async () => {
    const clone = await mkdtemp(path.join(tmpdir(), 'mr-agent-golden-clone-'));
    try {
      const url = `file://${result.remoteDir}`;
      await execa('git', ['clone', '--quiet', '--branch', result.branch, url, clone]);
      const after = await execa('node', ['--test'], { cwd: clone, reject: false });
      expect(after.exitCode, String(after.stdout)).to.equal(0);
      expect(String(after.stdout)).to.match(/pass 5\b/);
      await execa('git', ['checkout', '--quiet', 'HEAD^'], { cwd: clone });
      const before = await execa('node', ['--test'], { cwd: clone, reject: false });
      expect(before.exitCode).to.equal(1);
      expect(String(before.stdout)).to.contain('drops punctuation');
    } finally {
      await rm(clone, { recursive: true, force: true });
    }
  });

  it('the exact GitLab API calls (method, path, status, count) and the model calls by purpose', async () => {
    const artifacts = await goldenArtifacts(result);
    await expectGolden('e2e/gitlab-api.txt', artifacts['gitlab-api.txt']!);
    await expectGolden('e2e/llm-calls.txt', artifacts['llm-calls.txt']!);
  });

  it('the terminal output explains what happened: the comment, the job, the phases, the commit, the artifacts', () => {
    for (const text of [
      '/agent fix the failing test',
      'triggered pipeline #',
      'start checks: token has api scope',
      'environment: ✓ $ npm install',
      'run_command npm test',
      'model (planning): a plan: 2 subtasks, 2 actions, environment node',
      '⑤ The progress note on !1, final state',
      `⑦ Pushed to ${result.branch}`,
      'Task Note       .mr-agent/task-job-',
      '✅ COMPLETE',
    ])
      expect(output).to.contain(text);
  });
});

async function readText(file: string): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  return readFile(file, 'utf8');
}

describe('A7 golden end-to-end fails when a phase is skipped', function () {
  this.timeout(180_000);
  const variants = [
    { phase: 'environment setup', sets: ['environment.setup_enabled=false'] },
    { phase: 'planning', sets: ['planning.enabled=false'] },
    { phase: 'reflection', sets: ['planning.reflection.enabled=false'] },
    { phase: 'review', sets: ['review.enabled=false'] },
    { phase: 'replanning checkpoints', sets: ['planning.replanning.enabled=false'] },
    { phase: 'delivery (push)', sets: ['delivery.push=false'] },
  ];
  const mismatches = new Map<string, string[]>();
  const dirs: string[] = [];

  before(async () => {
    await Promise.all(
      variants.map(async (v) => {
        const { result } = await demo(v.sets);
        dirs.push(result.dir);
        mismatches.set(v.phase, await goldenMismatches(result));
      }),
    );
  });
  after(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  for (const v of variants)
    it(`skipping ${v.phase} (${v.sets.join(' ')}) breaks the golden comparison`, () => {
      expect(
        mismatches.get(v.phase) ?? [],
        'artifacts that differ from the golden files',
      ).to.have.length.greaterThan(0);
    });

  it('each skipped phase shows where it should: the note, the history, the commit or the model calls', () => {
    // the phase still runs but sets nothing up: the note's environment section says so
    expect(mismatches.get('environment setup')).to.include('progress-note.md');
    expect(mismatches.get('planning')).to.include.members(['llm-calls.txt', 'result.json']);
    expect(mismatches.get('reflection')).to.include.members(['llm-calls.txt', 'history.jsonl']);
    expect(mismatches.get('review')).to.include.members(['llm-calls.txt', 'progress-note.md']);
    expect(mismatches.get('replanning checkpoints')).to.include.members([
      'llm-calls.txt',
      'history.jsonl',
    ]);
    expect(mismatches.get('delivery (push)')).to.include.members([
      'commit.txt',
      'summary-note.md',
      'gitlab-api.txt',
    ]);
  });
});
