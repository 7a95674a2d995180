import { expect } from 'chai';
import { promptFiles } from '../../src/llm/prompt-files.ts';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { environmentStep } from '../../src/phases/environment/step.ts';
import { runTask } from '../../src/run/orchestrator.ts';
import { taskFromText } from '../../src/task/task-yaml.ts';
import type { Plan } from '../../src/core/plan.ts';
import { action, assessment, planWith, reflection } from '../support/plans.ts';
import { testDeps } from '../support/run-deps.ts';
import { exec, json, scripted, toolCall } from '../support/script.ts';
import { makeTempRepo } from '../support/temp-repo.ts';

/**
 * Issue 17 item 4, "Done when: a miniforge run executes its test command
 * inside the created environment". There is no conda here: a fake `conda`
 * on PATH records its arguments and, for `conda run`, runs the rest with
 * CONDA_DEFAULT_ENV set; a fake `python` records in which environment it ran.
 */
const FAKE_CONDA = (log: string) => `#!/bin/sh
printf 'conda' >> ${log}; for a in "$@"; do printf ' [%s]' "$a" >> ${log}; done; echo >> ${log}
[ "$1" = run ] || exit 0
shift
env_name=""
while [ $# -gt 0 ]; do
  case "$1" in
    -n|--name) env_name="$2"; shift 2;;
    --no-capture-output) shift;;
    *) break;;
  esac
done
CONDA_DEFAULT_ENV="$env_name" exec "$@"
`;
const FAKE_PYTHON = (log: string) => `#!/bin/sh
echo "python $* (env: \${CONDA_DEFAULT_ENV:-none})" >> ${log}
echo "ran in \${CONDA_DEFAULT_ENV:-none}"
`;

const REPO = {
  'environment.yml': 'name: demo-env\ndependencies:\n  - python=3.11\n  - pytest\n',
  'pytest.ini': '[pytest]\n',
  'test_app.py': 'def test_ok():\n    assert True\n',
  // a Node project next to it: its `npm test` must not be the test command
  'package.json': JSON.stringify({ scripts: { test: 'touch npm-test-ran' } }),
};

function miniforgePlan(): Plan {
  const plan = planWith([action('task_1', 'Check the interpreter', 'run_command')]);
  plan.selected_environment = {
    name: 'miniforge',
    reason: 'environment.yml',
    detected_files: ['environment.yml'],
    setup_commands: ['conda env create --name demo-env --file environment.yml'],
    verification: [
      { command: 'conda run -n demo-env python -c "print(1)"', expected_output: 'ran in demo-env' },
    ],
  };
  return plan;
}

describe('run: the selected environment flows to every later command (issue 17 item 4)', () => {
  it('issue 17 item 4: a miniforge run executes its test command and run_command inside the created environment', async () => {
    const repo = await makeTempRepo(REPO);
    try {
      const bin = path.join(path.dirname(repo.dir), 'bin');
      const log = path.join(path.dirname(repo.dir), 'calls.log');
      await mkdir(bin);
      await writeFile(path.join(bin, 'conda'), FAKE_CONDA(log), { mode: 0o755 });
      await writeFile(path.join(bin, 'python'), FAKE_PYTHON(log), { mode: 0o755 });
      const llm = scripted([
        json('planning', miniforgePlan()),
        exec.tools(toolCall('run_command', { command: 'python -c "print(42)"' })),
        exec.say('DONE: the interpreter runs'),
        json('reflection', reflection('success')),
        json('completion', assessment(true)),
      ]);
      const deps = await testDeps(llm, {
        sets: ['planning.reflection.trigger_interval=1'],
        env: { PATH: `${bin}:${process.env.PATH}` },
      });
      deps.environment = environmentStep({ ...deps, repoDir: repo.dir, prompts: promptFiles() });

      const outcome = await runTask(deps, {
        task: taskFromText('Check the interpreter', { repo: repo.dir, id: 't1' }),
        repoDir: repo.dir,
        maxLoops: 2,
      });

      expect(outcome.state, outcome.summary).to.equal('COMPLETE');
      const calls = (await readFile(log, 'utf8')).trim().split('\n');
      expect(calls).to.deep.equal([
        'conda [env] [create] [--name] [demo-env] [--file] [environment.yml]',
        'conda [run] [-n] [demo-env] [python] [-c] [print(1)]',
        'python -c print(1) (env: demo-env)',
        'conda [run] [-n] [demo-env] [--no-capture-output] [sh] [-c] [python -c "print(42)"]',
        'python -c print(42) (env: demo-env)',
        'conda [run] [-n] [demo-env] [--no-capture-output] [sh] [-c] [python -m pytest]',
        'python -m pytest (env: demo-env)',
      ]);
      expect(outcome.tests).to.have.length(1);
      expect(outcome.tests[0]).to.include({
        command: 'python -m pytest',
        passed: true,
        source: 'detected',
      });
      expect(outcome.tests[0]!.outputTail).to.equal('ran in demo-env');
      expect(existsSync(path.join(repo.dir, 'npm-test-ran')), 'npm test ran').to.equal(false);
      expect(outcome.environment).to.deep.include({
        environment_name: 'miniforge',
        setup_status: 'success',
        package_manager: 'conda',
        test_command: { command: 'python -m pytest', cwd: '.' },
      });
      expect(outcome.environment?.runner?.wrap).to.deep.equal([
        'conda',
        'run',
        '-n',
        'demo-env',
        '--no-capture-output',
      ]);
      const executionSystem = llm.calls[1]!.messages[0]!.content!;
      expect(executionSystem).to.contain('**Current environment**: miniforge');
      expect(executionSystem).to.contain('`conda run -n demo-env --no-capture-output sh -c');
      expect(executionSystem).to.contain('**Test command**: `python -m pytest`');
    } finally {
      await repo.cleanup();
    }
  });
});
