import { cpSync, existsSync, lstatSync } from 'node:fs';
import { promptFiles } from '../../../src/llm/prompt-files.ts';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { detectEnvironment } from '../../../src/phases/environment/detect-environment.ts';
import { renderEnvironmentSection } from '../../../src/phases/environment/section.ts';
import { selectEnvironment } from '../../../src/phases/environment/select.ts';
import { setupEnvironment } from '../../../src/phases/environment/setup.ts';
import { ScriptedJsonLlm } from './fake-llm.ts';
import { realDeps, tempRepo } from './support.ts';

const fixture = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../fixtures/repos/node-npm',
);

describe('environment phase on a real Node project (SPEC C2, D2, E1–E5)', function () {
  this.timeout(120_000);
  let repo: ReturnType<typeof tempRepo>;
  afterEach(() => repo?.cleanup());

  it('E1/E3 the fixture Node project really runs `npm ci` and passes verification (offline)', async () => {
    repo = tempRepo();
    cpSync(fixture, repo.dir, { recursive: true });
    const detection = await detectEnvironment(repo.dir);
    expect(detection.setup_commands).to.deep.equal(['npm ci --no-audit --no-fund']);
    // the planner said nothing about the environment: everything comes from detection (seed 000 §4.4.2)
    const selection = selectEnvironment({ detection });
    expect(selection.name).to.equal('node');
    const llm = new ScriptedJsonLlm();
    const { deps, lines } = realDeps(repo.dir, llm);
    const result = await setupEnvironment(selection, deps);

    expect(result.handoff, JSON.stringify(result.records, null, 2)).to.deep.equal({
      environment_ready: true,
      environment_name: 'node',
      setup_status: 'success',
      errors: [],
    });
    const [install, ...checks] = result.records;
    expect(install).to.include({
      stage: 'setup',
      command: 'npm ci --no-audit --no-fund',
      exitCode: 0,
      attempts: 1,
    });
    expect(install!.durationMs).to.be.greaterThan(0);
    expect(checks.map((c) => [c.expected, c.actual, c.matched])).to.deep.equal([
      ['true', 'true', true],
      ['true', 'true', true],
    ]);
    // npm links the file: dependency into node_modules
    expect(lstatSync(path.join(repo.dir, 'node_modules/local-greet')).isSymbolicLink()).to.equal(
      true,
    );
    expect(existsSync(path.join(repo.dir, 'package-lock.json'))).to.equal(true);
    expect(llm.requests).to.have.length(0);
    expect(lines.some((l) => l.includes('setup command finished'))).to.equal(true);

    const section = await renderEnvironmentSection(result.handoff, { prompts: promptFiles() });
    expect(section)
      .to.include('**Current environment**: node')
      .and.include('**Setup status**: success');
    expect(section).to.not.include('Warning');
  });
});
