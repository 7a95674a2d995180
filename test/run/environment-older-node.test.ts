import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Plan } from '../../src/core/plan.ts';
import { promptFiles } from '../../src/llm/prompt-files.ts';
import { startIsolation } from '../../src/shell/isolation.ts';
import { environmentStep } from '../../src/phases/environment/step.ts';
import { runTask } from '../../src/run/orchestrator.ts';
import { taskFromText } from '../../src/task/task-yaml.ts';
import { action, assessment, planWith, reflection } from '../support/plans.ts';
import { testDeps } from '../support/run-deps.ts';
import { exec, json, scripted, toolCall } from '../support/script.ts';
import { makeTempRepo } from '../support/temp-repo.ts';
import { legacyNodeProject } from '../support/legacy-node-project.ts';

/**
 * The job's environment phase on a project whose test tooling stops at an
 * older Node than the image's (SPEC E3, E5), as `mr-agent setup` handles it:
 * the tests that run none on the image's Node make the phase install the
 * newest Node the project's CI tests (16) from the real npm registry into the
 * tool cache and put it first on PATH for every later command — the model's
 * `run_command` and the verification's test command — and the progress note
 * and the log say so. As in the job, the commands run as the unprivileged
 * command user when the test runs as root (the older Node goes to that
 * user's own tool cache). The project is written for this test: its test
 * script refuses Node 17 and later before running anything, as an old loader
 * does.
 */

const PROJECT = legacyNodeProject('[12, 14, 16]');

function nodePlan(): Plan {
  const plan = planWith([action('task_1', 'Check the Node version', 'run_command')]);
  plan.selected_environment = {
    name: 'node',
    reason: 'package.json',
    detected_files: ['package.json'],
    setup_commands: ['npm install --no-audit --no-fund --no-package-lock'],
    verification: [{ command: `node -e "process.stdout.write('OK')"`, expected_output: 'OK' }],
  };
  return plan;
}

describe("the job's environment phase: tests that need an older Node (SPEC E3, E5)", function () {
  this.timeout(180_000);
  let cache: string;
  beforeEach(() => {
    cache = mkdtempSync(path.join(tmpdir(), 'mr-agent-job-older-node-'));
  });
  afterEach(() => rmSync(cache, { recursive: true, force: true }));

  it('E3 E5 tests that ran none on the Node on PATH run, with run_command, on the newest Node CI tests (16)', async () => {
    const repo = await makeTempRepo(PROJECT);
    try {
      const llm = scripted([
        json('planning', nodePlan()),
        exec.tools(
          toolCall('run_command', {
            command: `node -e "console.log('on node ' + process.version)"`,
          }),
        ),
        exec.say('DONE: the Node version is known'),
        json('reflection', reflection('success')),
        json('completion', assessment(true)),
      ]);
      const isolation = await startIsolation({
        security: { isolation: 'accept-risk', command_user: 'agent' },
        checkout: repo.dir,
        stateDir: '.mr-agent',
      });
      const env = {
        PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? ''}`,
        XDG_CACHE_HOME: cache,
        // the command user's npm keeps its cache in its own home, as the job's keeps it in the checkout
        ...(isolation.kind === 'separate-user'
          ? {}
          : { npm_config_cache: path.join(cache, 'npm') }),
        ...Object.fromEntries(
          ['NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY']
            .filter((name) => process.env[name] !== undefined)
            .map((name) => [name, process.env[name]!]),
        ),
      };
      const deps = await testDeps(llm, {
        sets: ['planning.reflection.trigger_interval=1'],
        env,
        overrides: { isolation },
      });
      deps.environment = environmentStep({ ...deps, repoDir: repo.dir, prompts: promptFiles() });

      const outcome = await runTask(deps, {
        task: taskFromText('Check the Node version', { repo: repo.dir, id: 't1' }),
        repoDir: repo.dir,
        maxLoops: 2,
      });

      expect(outcome.state, outcome.summary).to.equal('COMPLETE');
      const toolCache =
        isolation.kind === 'separate-user' ? path.join(isolation.user.home, '.cache') : cache;
      const bin = path.join(toolCache, 'mr-agent', 'node', '16', 'bin');
      expect(outcome.environment?.runner?.path).to.deep.equal([bin]);
      expect(existsSync(path.join(bin, 'node'))).to.equal(true);
      // the verification's test command ran on Node 16 and passed
      expect(outcome.tests).to.have.length(1);
      expect(outcome.tests[0]).to.include({
        command: 'npm test',
        passed: true,
        source: 'detected',
      });
      expect(outcome.tests[0]!.outputTail).to.include('# pass 2');
      // the model's run_command ran on Node 16 too
      const toolResults = llm.calls
        .flatMap((c) => c.messages)
        .filter((m) => m.role === 'tool')
        .map((m) => String(m.content));
      expect(toolResults.join('\n')).to.match(/on node v16\./);
      // the execution prompt, the progress note's environment line and the log say which Node
      const executionSystem = llm.calls[1]!.messages[0]!.content!;
      expect(executionSystem).to.match(/Node 16 runs first on PATH .* ran none on Node \d+/);
      expect(deps.reporter.environments[0]!.olderNode).to.deep.include({ major: 16 });
      expect(deps.logLines.join('\n')).to.match(/the tests run on an older Node/);
      // nothing of the older Node was left in the checkout
      expect(existsSync(path.join(repo.dir, 'node_modules', 'node'))).to.equal(false);
    } finally {
      await repo.cleanup();
    }
  });
});
