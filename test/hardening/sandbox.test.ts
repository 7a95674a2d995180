import { expect } from 'chai';
import path from 'node:path';
import { hasStackTrace } from './corpus/checks.ts';
import { probeEnvironments } from './sandbox/env-leaks.ts';
import {
  attempt,
  buildSandbox,
  ESCAPING_PATHS,
  PROBES,
  treeDigest,
  type Sandbox,
} from './sandbox/paths.ts';
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
      `environment: ${attempts} probes (env, printenv, set, /proc/self/environ, node, python, git config, …) under the command env, the worker env and the run_command tool, ${scanner.hits.length} escapes`,
    );
    expect(scanner.hits).to.deep.equal([]);
  });

  it('M2 no file tool reads, lists, writes or patches outside the repository or in .git', async () => {
    const sandbox: Sandbox = await buildSandbox();
    const escapes: string[] = [];
    const allowed: string[] = [];
    const unclear: string[] = [];
    let attempts = 0;
    try {
      const before = {
        outside: await treeDigest(sandbox.outside),
        git: await treeDigest(path.join(sandbox.dir, '.git')),
      };
      for (const raw of ESCAPING_PATHS) {
        for (const probe of PROBES) {
          attempts++;
          const result = await attempt(sandbox, probe, raw, before);
          const label = `${probe.tool} ${JSON.stringify(raw.slice(0, 60))}`;
          if (result.escaped) escapes.push(`${label}: ${result.why}`);
          if (result.ok) allowed.push(label);
          if (hasStackTrace(result.output) || !result.output.startsWith('Error: '))
            unclear.push(`${label}: ${result.output.slice(0, 200)}`);
        }
      }
    } finally {
      await sandbox.cleanup();
    }
    figures.push(
      `paths: ${ESCAPING_PATHS.length} hostile paths (traversal, absolute, symlinks to files/dirs, chains, dangling, loops, .git in ${ESCAPING_PATHS.filter((p) => /\.git|git-link/i.test(p)).length} spellings, NUL, over-long) × ${PROBES.length} tool calls = ${attempts} attempts, ${escapes.length} escapes, ${allowed.length} not refused`,
    );
    expect(escapes).to.deep.equal([]);
    expect(allowed).to.deep.equal([]);
    expect(unclear, 'refusals without a clear message').to.deep.equal([]);
    const unexpected = sandbox.ctx.logLines.filter((l) => l.includes('tool failed unexpectedly'));
    expect(unexpected, 'refusals that were not sandbox or tool errors').to.deep.equal([]);
  });
});
