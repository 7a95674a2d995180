import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import {
  releaseEnvironmentParts,
  replaceGeneratedParts,
  templateEnvironmentParts,
} from '../../../src/ci/generated-environments.ts';
import { ENVIRONMENTS } from '../../../src/config/options.ts';
import { parseComponentTemplate } from '../../../src/config/template-spec.ts';
import { planningEnvironmentValues } from '../../../src/phases/environment/planning-values.ts';
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

  it('C2 the toy environment from its one folder gets its planning-prompt line, its component-template jobs and its release image', () => {
    const kinds = [...ENVIRONMENT_KINDS, deno];
    const text = replaceGeneratedParts(
      readFileSync('templates/agent.yml', 'utf8'),
      templateEnvironmentParts(kinds),
      'agent.yml',
    );
    const template = parseComponentTemplate(text, 'agent.yml');
    const jobs = template.jobs as Record<string, { variables?: Record<string, unknown> }>;

    expect(template.inputs.find((i) => i.name === 'environment')!.options).to.deep.equal([
      'auto',
      ...ENVIRONMENTS,
      'deno',
    ]);
    expect(template.inputs.find((i) => i.name === 'image_deno')).to.deep.include({
      default: '$MR_AGENT_IMAGE_REGISTRY/deno:$MR_AGENT_IMAGE_TAG',
      description: 'Image for the `deno` environment.',
      group: 'Environment and images',
    });
    expect(jobs['.$[[ inputs.as ]]:job']!.variables!['MR_AGENT_IMAGE_DENO']).to.equal(
      '$[[ inputs.image_deno ]]',
    );
    expect(jobs['.$[[ inputs.as ]]:env:deno']).to.deep.equal({
      image: '$[[ inputs.image_deno ]]',
      variables: { DENO_DIR: '$CI_PROJECT_DIR/.mr-agent-cache/deno' },
      cache: {
        key: '$[[ inputs.cache_key ]]-deno',
        when: 'always',
        paths: ['.mr-agent-cache/deno'],
      },
    });
    expect(jobs['.$[[ inputs.as ]]:two-step:deno']).to.deep.equal({ rules: [{ when: 'never' }] });
    expect(releaseEnvironmentParts(kinds)['images']).to.deep.equal([
      `      - IMAGE: [${[...ENVIRONMENTS, 'deno', 'bridge'].join(', ')}]`,
    ]);
    const planning = planningEnvironmentValues(kinds);
    expect(planning.environments.split('\n').at(-1)).to.equal('- **deno**: Deno with deno install');
    expect(planning.environment_criteria).to.match(/; `deno\.json` → deno$/);
  });

  it('C2 outside its folder, an environment is named in three hand-written files: options.ts, registry.ts and its image', () => {
    // `miniforge` is a word no other code uses; comments and docs may name it, generated parts are written from the registry, prompts list the registry's
    const outside = execFileSync('git', ['ls-files'], { encoding: 'utf8' })
      .split('\n')
      .filter((f) => f !== '' && existsSync(f))
      .filter((f) => !/^test\/|^src\/phases\/environment\/kinds\//.test(f))
      .filter((f) => /\.(ts|mjs|cjs|ya?ml)$|Dockerfile$|^prompts\//.test(f))
      .filter((f) => /miniforge/.test(handWritten(f)));
    expect(outside.sort()).to.deep.equal([
      'images/miniforge/Dockerfile',
      'src/config/options.ts',
      'src/phases/environment/registry.ts',
    ]);
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

/** A file's text without its comments and without the parts `npm run docs` writes. */
function handWritten(file: string): string {
  const text = readFileSync(file, 'utf8');
  if (file.endsWith('Dockerfile') || file.startsWith('prompts/')) return text;
  if (/\.ya?ml$/.test(file))
    return text
      .replace(/^\s*# generated:([\w-]+) [\s\S]*?# \/generated:\1$/gm, '')
      .replace(/#.*$/gm, '');
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
}
