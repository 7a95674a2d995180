import { mkdir, writeFile } from 'node:fs/promises';
import { shellCheckout } from '../../../src/shell/checkout-port.ts';
import path from 'node:path';
import { expect } from 'chai';
import { execa } from 'execa';
import { createMemoryLogger } from '../../../src/log/logger.ts';
import { Redactor } from '../../../src/log/redact.ts';
import { workingDiff } from '../../../src/phases/review/diff.ts';
import { FEEDBACK_CHARS, reviewPhase } from '../../../src/phases/review/index.ts';
import type { RunContext } from '../../../src/core/run-context.ts';
import { createRunContext } from '../../../src/run/context.ts';
import { taskFromText } from '../../../src/task/task-yaml.ts';
import { ScriptedLlm } from '../../../src/testkit/scripted-llm.ts';
import { testDeps } from '../../support/run-deps.ts';
import { makeTempRepo } from '../../support/temp-repo.ts';
import { writeHello } from './harness.ts';
import { ExecaShell } from '../../../src/shell/execa-shell.ts';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

interface Setup {
  ctx: RunContext;
  llm: ScriptedLlm;
  dir: string;
  messages: () => Array<Record<string, unknown>>;
}

/** A run context on a real temporary repository, planned, with scripted review replies. */
async function setUp(
  replies: string[],
  options: { files?: Record<string, string>; git?: boolean } = {},
): Promise<Setup> {
  const repo = await makeTempRepo(options.files ?? { 'README.md': '# demo\n' }, {
    git: options.git ?? true,
  });
  cleanups.push(repo.cleanup);
  const llm = new ScriptedLlm(
    replies.map((content) => ({ purpose: 'review.*', role: 'review', content })),
    { ordered: true },
  );
  const redactor = new Redactor();
  const { logger, lines } = createMemoryLogger({ level: 'debug', format: 'json', redactor });
  const deps = await testDeps(llm, { realReview: true, overrides: { logger, redactor } });
  const task = taskFromText('Write hello.txt with the word hello', { repo: repo.dir, id: 't' });
  const ctx = await createRunContext(deps, task, { repoDir: repo.dir, maxLoops: 3 });
  ctx.state.gathered = {
    request: {
      source: 'merge_request',
      reference: '!7',
      title: 'Greeting file',
      body: 'Please add hello.txt saying hello.',
      labels: [],
      discussion: [],
    },
    guidance: [],
    history: [],
    files: ['README.md'],
  };
  ctx.state.plan = writeHello.plan;
  const messages = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  return { ctx, llm, dir: repo.dir, messages };
}

const lastUser = (llm: ScriptedLlm, n = -1) =>
  llm.calls.at(n)!.messages.find((m) => m.role === 'user')!.content ?? '';
const system = (llm: ScriptedLlm) =>
  llm.calls.at(-1)!.messages.find((m) => m.role === 'system')!.content ?? '';

describe('review phase: the ReviewHook (seed 004; SPEC G1, G2)', () => {
  it('G1 a planning review sends the request and the plan as review.planning (role review)', async () => {
    const { ctx, llm } = await setUp(['{"result": "PASS", "feedback": ""}']);
    const verdict = await reviewPhase(ctx, { phase: 'planning', attempt: 0, text: '{"plan": 1}' });
    llm.assertAllUsed();
    expect(verdict).to.deep.equal({ result: 'PASS', feedback: '' });
    expect(llm.calls[0]).to.include({ kind: 'chat', purpose: 'review.planning', role: 'review' });
    expect(system(llm))
      .to.contain("mr-agent's plan reviewer")
      .and.contain('This is review 1 of at most 4');
    expect(lastUser(llm))
      .to.contain('The merge request !7: title')
      .and.contain('Please add hello.txt saying hello.')
      .and.contain('## Plan to review')
      .and.contain('{"plan": 1}');
  });

  it('G1 an execution review sends the success criteria and the working-tree diff (changed and new files, not the state folder)', async () => {
    const { ctx, llm, dir } = await setUp(['{"result": "PASS", "feedback": ""}']);
    await writeFile(path.join(dir, 'README.md'), '# demo\nmore\n');
    await writeFile(path.join(dir, 'hello.txt'), 'hello\n');
    await mkdir(path.join(dir, '.mr-agent'));
    await writeFile(path.join(dir, '.mr-agent/metadata.json'), '{"secret-state": true}');
    await reviewPhase(ctx, { phase: 'execution', attempt: 0, text: 'A1 task_1 [success]' });
    expect(llm.calls[0]).to.include({ purpose: 'review.execution', role: 'review' });
    expect(system(llm)).to.contain("mr-agent's change reviewer");
    const user = lastUser(llm);
    expect(user)
      .to.contain('- AC-1: hello.txt says hello')
      .and.contain('A1 task_1 [success]')
      .and.contain('## Changes (git diff against HEAD; 2 files)')
      .and.contain('+more')
      .and.contain('+++ b/hello.txt')
      .and.not.contain('secret-state');
  });

  it('G1 a later review shows the reviewer its previous feedback on the phase', async () => {
    const { ctx, llm } = await setUp(['{"result": "PASS", "feedback": ""}']);
    ctx.state.reviews.push({
      phase: 'planning',
      result: 'FAIL',
      attempt: 1,
      maxAttempts: 4,
      feedback: 'Add a test step.',
    });
    await reviewPhase(ctx, { phase: 'planning', attempt: 1, text: '{}' });
    expect(system(llm)).to.contain('This is review 2 of at most 4');
    expect(lastUser(llm))
      .to.contain('Your feedback on the previous version (review 1: FAIL)')
      .and.contain('Add a test step.');
  });

  const paths: Array<[string, string, 'PASS' | 'FAIL' | 'PASS_WITH_SUGGESTIONS', string]> = [
    [
      'AC-1 JSON followed by prose',
      '{"result": "FAIL"} \n理由: タスク分割が不十分...',
      'FAIL',
      'JSON extraction succeeded',
    ],
    [
      'AC-2 a PASS-looking sentence and a final FAIL',
      '再度レビューを実施し、PASS判定が可能になります\n最終判定: FAIL',
      'FAIL',
      'Fallback verdict: FAIL (marker pattern: 最終判定)',
    ],
    [
      'AC-3 判定: PASS and 最終判定: FAIL',
      '判定: PASS\n最終判定: FAIL',
      'FAIL',
      'Fallback verdict: FAIL (marker pattern: 最終判定)',
    ],
    [
      'G2 an English marker',
      'Looks right.\n\n**Verdict**: PASS_WITH_SUGGESTIONS',
      'PASS_WITH_SUGGESTIONS',
      'Fallback verdict: PASS_WITH_SUGGESTIONS (marker pattern: 判定結果)',
    ],
    [
      'G2 "PASS判定が可能になります" alone',
      '修正すればPASS判定が可能になります。',
      'FAIL',
      'Fallback verdict: FAIL (no marker pattern found, defaulting to FAIL)',
    ],
  ];
  for (const [name, reply, result, message] of paths) {
    it(`${name} → ${result}, logged as "${message}"`, async () => {
      const { ctx, messages } = await setUp([reply]);
      const verdict = await reviewPhase(ctx, { phase: 'planning', attempt: 0, text: '{}' });
      expect(verdict.result).to.equal(result);
      const entry = messages().find((e) => e['message'] === message);
      expect(entry, message).to.include({ phase: 'planning', attempt: 0, result });
    });
  }

  it('FR-4 the feedback: JSON feedback as given; a JSON FAIL without it keeps the reply; markers keep the reply; long feedback is cut', async () => {
    const long = 'x'.repeat(FEEDBACK_CHARS + 500);
    const { ctx } = await setUp([
      '{"result": "FAIL", "feedback": "Split task_1."} and some prose',
      '{"result": "FAIL"}\n理由: テストがない',
      '最終判定: FAIL\nテストがない',
      '{"result": "PASS"}',
      '',
      JSON.stringify({ result: 'FAIL', feedback: long }),
    ]);
    const feedback = async () =>
      (await reviewPhase(ctx, { phase: 'planning', attempt: 0, text: '{}' })).feedback;
    expect(await feedback()).to.equal('Split task_1.');
    expect(await feedback()).to.equal('{"result": "FAIL"}\n理由: テストがない');
    expect(await feedback()).to.equal('最終判定: FAIL\nテストがない');
    expect(await feedback()).to.equal('');
    expect(await feedback()).to.equal('The reviewer gave no reasons.');
    const cut = await feedback();
    expect(cut).to.have.length(FEEDBACK_CHARS + 2);
  });

  it('G1 outside a git work tree the execution reviewer sees the changed files as they are', async () => {
    const { ctx, llm, dir } = await setUp(['{"result": "PASS", "feedback": ""}'], { git: false });
    await writeFile(path.join(dir, 'hello.txt'), 'hello from outside git\n');
    ctx.state.changedFiles.add('hello.txt');
    await reviewPhase(ctx, { phase: 'execution', attempt: 0, text: 'A1' });
    expect(lastUser(llm))
      .to.contain('not a git work tree')
      .and.contain('=== hello.txt (current content)')
      .and.contain('hello from outside git');
  });
});

describe('review phase: the working-tree diff', () => {
  async function repo(files: Record<string, string>, git = true) {
    const made = await makeTempRepo(files, { git });
    cleanups.push(made.cleanup);
    return made.dir;
  }
  const options = (dir: string, extra: { maxChars?: number; redactor?: Redactor } = {}) => ({
    shell: new ExecaShell(),
    checkout: shellCheckout,
    repoDir: dir,
    stateDir: '.mr-agent',
    hostEnv: { PATH: process.env.PATH },
    redactor: extra.redactor ?? new Redactor(),
    logger: createMemoryLogger({ redactor: new Redactor() }).logger,
    maxChars: extra.maxChars ?? 10_000,
    changedFiles: [],
  });

  it('reads deletions, new files with spaces in their names, and leaves the index untouched', async () => {
    const dir = await repo({ 'old.txt': 'old\n', 'keep.txt': 'keep\n' });
    await execa('rm', ['old.txt'], { cwd: dir });
    await writeFile(path.join(dir, 'new file.txt'), 'new\n');
    const diff = await workingDiff(options(dir));
    expect(diff.git).to.equal(true);
    expect(diff.files).to.have.members(['old.txt', 'new file.txt']);
    expect(diff.text).to.contain('-old').and.contain('+new').and.contain('deleted file mode');
    const status = await execa('git', ['status', '--porcelain'], { cwd: dir });
    expect(status.stdout).to.contain('?? "new file.txt"');
  });

  it('diffs against the empty tree in a repository without commits', async () => {
    const dir = await repo({}, false);
    await execa('git', ['init', '-q'], { cwd: dir });
    await writeFile(path.join(dir, 'a.txt'), 'a\n');
    const diff = await workingDiff(options(dir));
    expect(diff.files).to.deep.equal(['a.txt']);
    expect(diff.text).to.contain('+a');
  });

  it('cuts a long diff with a note and masks secrets', async () => {
    const dir = await repo({ 'a.txt': 'a\n' });
    const secret = 'glpat-SECRET0123456789abcd';
    await writeFile(path.join(dir, 'a.txt'), `token=${secret}\n${'line\n'.repeat(2000)}`);
    const redactor = new Redactor();
    redactor.add(secret);
    const diff = await workingDiff(options(dir, { maxChars: 500, redactor }));
    expect(diff.cut).to.be.greaterThan(0);
    expect(diff.text).to.contain('more characters of the diff cut').and.not.contain(secret);
    expect(diff.text.length).to.be.lessThan(600);
  });
});
