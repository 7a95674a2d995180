import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { RunResultFile } from '../../src/report/result-file.ts';
import { exec, json, toolCall } from '../support/script.ts';
import { expectGolden } from '../support/golden.ts';
import { action, assessment, planWith, reflection } from '../support/plans.ts';
import { runScenario } from './scenario.ts';

/** Run-specific values (temp paths, real durations) replaced by placeholders. */
function normalize(text: string, dir: string): string {
  return text
    .split(dir)
    .join('<repo>')
    .replace(/"duration_ms": ?\d+/g, '"duration_ms": 0')
    .replace(/\(\d+ ms\)/g, '(0 ms)')
    .replace(/\| \d+(\.\d+)? ?m?s \|/g, '| 0 ms |');
}

const fixPatch =
  '--- a/math.js\n+++ b/math.js\n@@ -1,3 +1,3 @@\n export function add(a, b) {\n-  return a - b;\n+  return a + b;\n }\n';

describe('run: golden files of a complete run (H1, H4, I1, L3)', () => {
  it('plan → three actions → tests pass: Task Note, result.json, history JSONL and the final progress note', async () => {
    const { outcome, dir, terminal } = await runScenario({
      realReporting: true,
      files: {
        'math.js': 'export function add(a, b) {\n  return a - b;\n}\n',
        'test.sh':
          'grep -q hello greeting.txt && grep -q "return a + b" math.js && test -f NOTES.md && echo "3 passed, 0 failed"\n',
      },
      test: 'sh test.sh',
      steps: [
        json(
          'planning',
          planWith(
            [
              action('task_1', 'Create greeting.txt'),
              action('task_2', 'Fix add() in math.js', 'apply_patch'),
              action('task_3', 'Write NOTES.md'),
            ],
            ['greeting.txt says hello', 'add() returns the sum', 'the tests pass'],
          ),
        ),
        exec.tools(toolCall('write_file', { path: 'greeting.txt', content: 'hello\n' })),
        exec.say('DONE: created greeting.txt'),
        exec.tools(toolCall('apply_patch', { patch: fixPatch })),
        exec.say('DONE: add() now adds'),
        exec.tools(toolCall('write_file', { path: 'NOTES.md', content: '# Notes\n' })),
        exec.say('DONE: wrote NOTES.md'),
        json('reflection', reflection('success')),
        json('completion', assessment(true, ['AC-1', 'AC-2', 'AC-3'])),
      ],
    });
    expect(outcome.state, outcome.summary).to.equal('COMPLETE');
    const state = path.join(dir, '.mr-agent');
    const read = async (file: string) =>
      normalize(await readFile(path.join(state, file), 'utf8'), dir);

    const result = RunResultFile.parse(
      JSON.parse(await readFile(path.join(state, 'result.json'), 'utf8')),
    );
    expect(result).to.include({
      task_id: 'task-1',
      status: 'succeeded',
      state: 'complete',
      exit_code: 0,
    });
    expect(result.validation.overall).to.equal('passed');
    expect(result.validation.commands).to.have.length(1);

    await expectGolden('run/complete/result.json', await read('result.json'));
    await expectGolden('run/complete/task-note.md', await read('task-task-1.md'));
    await expectGolden('run/complete/history.jsonl', await read('planning_history/task-1.jsonl'));
    await expectGolden('run/complete/progress-note.md', await read('notes/progress-1.md'));
    await expectGolden('run/complete/summary-note.md', await read('notes/summary-1.md'));
    const metadata = JSON.parse(await readFile(path.join(state, 'metadata.json'), 'utf8')) as {
      phases: Record<string, { status: string }>;
    };
    expect(
      Object.fromEntries(Object.entries(metadata.phases).map(([k, v]) => [k, v.status])),
    ).to.deep.equal({
      pre_planning: 'completed',
      planning: 'completed',
      environment_setup: 'skipped',
      execution: 'completed',
      reflection: 'completed',
      verification: 'completed',
      complete: 'completed',
    });
    const runs = JSON.parse(await readFile(path.join(state, 'runs.json'), 'utf8')) as {
      runs: Array<{ state: string }>;
    };
    expect(runs.runs.map((r) => r.state)).to.deep.equal(['complete']);
    expect(terminal.join('')).to.contain('● note progress-1').and.contain('● note summary-1');
  });

  it('F2 max_revisions exceeded: the human-intervention note, needs_human in result.json and runs.json', async () => {
    const { outcome, dir } = await runScenario({
      realReporting: true,
      sets: ['planning.revision.max_revisions=0'],
      steps: [
        json('planning', planWith([action('task_1', 'Edit a.js', 'apply_patch')])),
        exec.say('FAILED: a.js is missing'),
        json(
          'reflection',
          reflection('failure', { reason: 'try b.js', actions: [action('task_1', 'Edit b.js')] }),
        ),
      ],
    });
    expect(outcome).to.include({ reason: 'human_intervention', exitCode: 1 });
    const state = path.join(dir, '.mr-agent');
    const note = await readFile(path.join(state, 'notes/human-intervention-1.md'), 'utf8');
    await expectGolden('run/human-intervention/note.md', normalize(note, dir));
    const result = RunResultFile.parse(
      JSON.parse(await readFile(path.join(state, 'result.json'), 'utf8')),
    );
    expect(result).to.include({ status: 'failed', state: 'needs_human', exit_code: 1 });
    const runs = JSON.parse(await readFile(path.join(state, 'runs.json'), 'utf8')) as {
      runs: Array<{ state: string }>;
    };
    expect(runs.runs.map((r) => r.state)).to.deep.equal(['needs_human']);
  });
});
