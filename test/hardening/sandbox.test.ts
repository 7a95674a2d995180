import { expect } from 'chai';
import { probeEnvironments } from './sandbox/env-leaks.ts';
import { recordFigures } from './support/figures.ts';

/**
 * The sandbox corpus (issue 12 §2, SPEC M1, M2): attempts to get out of what
 * the agent's commands and tools may see. Zero escapes.
 */
describe('hardening: sandbox corpus (SPEC M1, M2)', function () {
  this.timeout(120_000);
  const figures: string[] = [];

  after(() => recordFigures('sandbox corpus', figures));

  it('M1 no secret reaches a command or a worker CLI through its environment', async () => {
    const { attempts, scanner, controlHits } = await probeEnvironments();
    expect(controlHits, 'the probes find every secret in an unfiltered environment').to.equal(6);
    figures.push(
      `environment: ${attempts} probe commands (env, printenv, set, /proc/self/environ, node, python, git config, …) × command and worker env, ${scanner.hits.length} escapes`,
    );
    expect(scanner.hits).to.deep.equal([]);
  });
});
