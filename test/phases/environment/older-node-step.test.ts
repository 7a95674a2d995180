import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { loadConfig } from '../../../src/config/load.ts';
import { FakeClock } from '../../../src/core/clock.ts';
import { CancelledError } from '../../../src/errors/errors.ts';
import { promptFiles } from '../../../src/llm/prompt-files.ts';
import { createMemoryLogger } from '../../../src/log/logger.ts';
import { Redactor } from '../../../src/log/redact.ts';
import { environmentStep } from '../../../src/phases/environment/step.ts';
import { ExecaShell } from '../../../src/shell/execa-shell.ts';
import { ScriptedJsonLlm } from './fake-llm.ts';
import { tempRepo } from './support.ts';
import { ciWorkflowTesting } from '../../support/legacy-node-project.ts';

/**
 * What the job's environment step costs and keeps when a Node project's pins
 * stop below the Node on PATH (SPEC E3, E5), without the registry: tests
 * that run on the Node on PATH keep it (one test run, nothing installed);
 * pins that allow it cost no test run; a cancel during the test run stops
 * the step. The switch to an older Node itself is tested against the real
 * registry in test/run/environment-older-node.test.ts.
 */

const project = (matrix: string, test: string) => ({
  'package.json': JSON.stringify({ name: 'lib', version: '1.0.0', scripts: { test } }),
  '.github/workflows/ci.yml': ciWorkflowTesting(matrix),
});

/** The test script counts its runs in `runs.txt`. */
const COUNTING = `node -e "require('fs').appendFileSync('runs.txt', 'x'); console.log('# tests 1')"`;

describe("the job's environment step and an older Node, without the registry (SPEC E3, E5)", function () {
  this.timeout(30_000);
  let repo: ReturnType<typeof tempRepo> | undefined;
  let cache: string;
  beforeEach(() => {
    cache = mkdtempSync(path.join(tmpdir(), 'mr-agent-older-step-'));
  });
  afterEach(() => {
    repo?.cleanup();
    rmSync(cache, { recursive: true, force: true });
  });

  async function step(dir: string) {
    const { config } = await loadConfig({ env: {}, file: null });
    const redactor = new Redactor();
    const memory = createMemoryLogger({ redactor, level: 'debug' });
    return {
      lines: memory.lines,
      step: environmentStep({
        config,
        llm: new ScriptedJsonLlm(),
        shell: new ExecaShell(),
        clock: new FakeClock(),
        logger: memory.logger,
        redactor,
        hostEnv: {
          PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? ''}`,
          HOME: cache,
          XDG_CACHE_HOME: cache,
        },
        repoDir: dir,
        prompts: promptFiles(),
      }),
    };
  }

  const selected = {
    name: 'node' as const,
    setup_commands: ['true'],
    verification: [{ command: 'echo ok', expected_output: 'ok' }],
  };

  it('E5 tests that run on the Node on PATH keep it: one test run, nothing installed', async () => {
    repo = tempRepo(project('[12, 14]', COUNTING));
    const { step: s } = await step(repo.dir);
    const outcome = await s.setup(selected);
    expect(outcome.handoff.setup_status).to.equal('success');
    expect(outcome.handoff.runner).to.equal(undefined);
    expect(outcome.olderNode).to.equal(undefined);
    expect(readFileSync(path.join(repo.dir, 'runs.txt'), 'utf8')).to.equal('x');
    expect(existsSync(path.join(cache, 'mr-agent', 'node'))).to.equal(false);
  });

  it('E5 pins that allow the Node on PATH cost no test run', async () => {
    repo = tempRepo(project('[20, 22, 24, 26]', COUNTING));
    const { step: s } = await step(repo.dir);
    const outcome = await s.setup(selected);
    expect(outcome.handoff.setup_status).to.equal('success');
    expect(outcome.handoff.runner).to.equal(undefined);
    expect(existsSync(path.join(repo.dir, 'runs.txt'))).to.equal(false);
  });

  it('E3 a cancel while the tests run on the Node on PATH stops the step, nothing installed', async () => {
    repo = tempRepo(project('[12, 14]', 'sleep 20'));
    const { step: s } = await step(repo.dir);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 500);
    let error: unknown;
    await s.setup(selected, controller.signal).catch((e: unknown) => (error = e));
    expect(error).to.be.instanceOf(CancelledError);
    expect(existsSync(path.join(cache, 'mr-agent', 'node'))).to.equal(false);
  });
});
