import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { ENVIRONMENTS } from '../../../src/config/options.ts';
import { classifyFailure } from '../../../src/phases/environment/classify.ts';
import { detectEnvironment } from '../../../src/phases/environment/detect-environment.ts';
import { detectionKinds, ENVIRONMENT_KINDS } from '../../../src/phases/environment/registry.ts';
import { deno } from './fixtures/deno/kind.ts';
import { tempRepo } from './support.ts';

describe('environments as plug-ins: the registry', () => {
  it('C2 the registry lists exactly the configurable environments, in their order', () => {
    expect(ENVIRONMENT_KINDS.map((k) => k.name)).to.deep.equal([...ENVIRONMENTS]);
  });

  it('C2 every registered environment has its runner image folder, and images/ holds no other environment', () => {
    for (const kind of ENVIRONMENT_KINDS)
      expect(
        existsSync(`images/${kind.name}/Dockerfile`),
        `images/${kind.name}/Dockerfile`,
      ).to.equal(true);
    const folders = readdirSync('images').filter((f) => f !== 'bridge');
    expect(folders.sort()).to.deep.equal(ENVIRONMENT_KINDS.map((k) => k.name).sort());
  });

  it("C2 the release pipeline builds every registered environment's image (and the bridge's)", () => {
    const ci = parseYaml(readFileSync('.gitlab-ci.yml', 'utf8')) as {
      images: { parallel: { matrix: { IMAGE: string[] }[] } };
    };
    const built = ci.images.parallel.matrix.flatMap((m) => m.IMAGE);
    expect([...built].sort()).to.deep.equal(
      [...ENVIRONMENT_KINDS.map((k) => k.name), 'bridge'].sort(),
    );
  });

  it("B3 the component template's per-environment jobs are exactly the registry's", () => {
    const template = readFileSync('templates/agent.yml', 'utf8');
    const declared = [...template.matchAll(/^'\.\$\[\[ inputs\.as \]\]:env:([\w-]+)':/gm)]
      .map((m) => m[1]!)
      .filter((name) => name !== 'auto');
    expect(declared).to.deep.equal([...ENVIRONMENTS]);
  });

  it('C2 a toy environment declared in one folder is detected, ranked by CI evidence and given its test command', async () => {
    const repo = tempRepo({
      'deno.json': JSON.stringify({ imports: { std: 'jsr:@std/assert@1' } }),
      'deno.lock': '{}',
      'tools/package.json': JSON.stringify({ name: 'tools', dependencies: { a: '1', b: '2' } }),
      '.gitlab-ci.yml': 'test:\n  script:\n    - deno test --allow-read\n',
    });
    try {
      const kinds = detectionKinds([...ENVIRONMENT_KINDS, deno]);
      const found = await detectEnvironment(repo.dir, { listing: 'walk', kinds });
      expect(found.environment_type).to.equal('deno');
      expect(found.setup_commands).to.deep.equal(['deno install']);
      expect(found.dependencies).to.deep.equal(['std']);
      expect(found.test_command?.command).to.equal('deno test --allow-read');
      expect(found.candidates.map((c) => c.environment)).to.deep.equal(['node', 'deno']);
      // without it, the same repository is a Node one: the toy changed nothing else
      const without = await detectEnvironment(repo.dir, { listing: 'walk' });
      expect(without.environment_type).to.equal('node');
    } finally {
      repo.cleanup();
    }
  });

  it("E2 the registered environments' install signatures are classified, the shared ones after them", () => {
    expect(classifyFailure({ exitCode: 1, output: 'ERESOLVE unable to resolve' })).to.include({
      kind: 'version-conflict',
      tool: 'npm',
    });
    expect(
      classifyFailure({
        exitCode: 1,
        output: 'sh: 1: pytest: not found\nNo such file or directory',
      }),
    ).to.include({ kind: 'command-not-found', tool: 'shell' });
  });
});
