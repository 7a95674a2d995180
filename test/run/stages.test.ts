import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { runStages, runTask } from '../../src/run/orchestrator.ts';
import { taskFromText } from '../../src/task/task-yaml.ts';
import { exec, json, scripted, toolCall } from '../support/script.ts';
import { action, assessment, planWith } from '../support/plans.ts';
import { testDeps } from '../support/run-deps.ts';
import { makeTempRepo } from '../support/temp-repo.ts';

const plan = planWith([action('task_1', 'Create greeting.txt')], ['greeting.txt says hello']);
const planning = [json('planning', plan)];
const work = [
  exec.tools(toolCall('write_file', { path: 'greeting.txt', content: 'hello\n' })),
  exec.say('DONE: created greeting.txt'),
  json('completion', assessment(true, ['AC-1'])),
];

describe('run/orchestrator stages (B2: plan job, then the run job in the chosen image)', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });

  async function repo() {
    const r = await makeTempRepo({ 'README.md': '# demo\n' });
    cleanups.push(r.cleanup);
    return r.dir;
  }

  it('B2 the plan job stops after planning without a final state; the run job carries the plan to COMPLETE', async () => {
    const dir = await repo();
    const task = taskFromText('Say hello', { repo: dir, id: 'task-1' });
    const planLlm = scripted(planning);
    const planDeps = await testDeps(planLlm);

    const planned = await runStages(planDeps, {
      task,
      repoDir: dir,
      maxLoops: 3,
      stopAfterPlan: { kind: 'hand-over' },
    });

    planLlm.assertAllUsed();
    expect(planned.kind).to.equal('planned');
    if (planned.kind !== 'planned') return;
    expect(planned.work.plan).to.deep.equal(plan);
    expect(planned.work.gathered?.request.title).to.equal('Say hello');
    expect(planDeps.reporter.outcome).to.equal(undefined);
    expect(planDeps.history.types()).to.deep.equal(['plan']);

    // the handed-over work travels as JSON in the plan job's artifacts
    const handed = JSON.parse(JSON.stringify(planned.work));
    const runLlm = scripted(work);
    const runDeps = await testDeps(runLlm);
    const outcome = await runTask(runDeps, {
      task,
      repoDir: dir,
      maxLoops: 3,
      from: { work: handed, by: 'job 7' },
    });

    runLlm.assertAllUsed();
    expect(outcome, outcome.summary).to.include({ state: 'COMPLETE', exitCode: 0 });
    expect(await readFile(path.join(dir, 'greeting.txt'), 'utf8')).to.equal('hello\n');
    expect(outcome.transitions.map((t) => `${t.from}>${t.to}`)).to.deep.equal([
      'PENDING>PLANNING',
      'PLANNING>RUNNING',
      'RUNNING>VALIDATING',
      'VALIDATING>COMPLETE',
    ]);
    // the plan is already in the history: the run job adds only its own entries
    expect(runDeps.history.types()).to.deep.equal(['execution:A1', 'execution:verification']);
    expect(runDeps.reporter.outcome?.state).to.equal('COMPLETE');
  });

  it('A1 `/agent plan`: stopping after the plan with `finish` makes the plan the result; nothing is executed', async () => {
    const dir = await repo();
    const task = taskFromText('Say hello', { repo: dir, id: 'task-2' });
    const deps = await testDeps(scripted(planning));

    const result = await runStages(deps, {
      task,
      repoDir: dir,
      maxLoops: 3,
      stopAfterPlan: { kind: 'finish', summary: 'The plan is posted.' },
    });

    expect(result.kind).to.equal('ended');
    if (result.kind !== 'ended') return;
    expect(result.outcome).to.include({ state: 'COMPLETE', summary: 'The plan is posted.' });
    expect(result.outcome.actions).to.have.length(0);
    expect(deps.reporter.outcome?.state).to.equal('COMPLETE');
  });

  it('a run that ends during planning is finished in the plan job (no hand-off)', async () => {
    const dir = await repo();
    const task = taskFromText('Say hello', { repo: dir, id: 'task-3' });
    const deps = await testDeps(
      scripted([{ purpose: 'planning', error: new Error('endpoint down') }]),
    );

    const result = await runStages(deps, {
      task,
      repoDir: dir,
      maxLoops: 3,
      stopAfterPlan: { kind: 'hand-over' },
    });

    expect(result.kind).to.equal('ended');
    if (result.kind === 'ended') expect(result.outcome.state).to.equal('FAILED');
  });
});
