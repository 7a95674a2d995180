import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import {
  releaseEnvironmentParts,
  replaceGeneratedParts,
  templateEnvironmentParts,
} from '../../src/ci/generated-environments.ts';

const FILES = [
  ['templates/agent.yml', templateEnvironmentParts()],
  ['.gitlab-ci.yml', releaseEnvironmentParts()],
] as const;

describe('ci/generated-environments: the per-environment YAML written from the registry', () => {
  for (const [file, parts] of FILES)
    it(`B3 the per-environment parts of ${file} are the registry's (\`npm run docs\` writes them)`, () => {
      const text = readFileSync(file, 'utf8');
      expect(replaceGeneratedParts(text, parts, file)).to.equal(text);
    });

  it('a part edited by hand is stale: the file written again differs', () => {
    const text = readFileSync('templates/agent.yml', 'utf8');
    const edited = text.replace('    MR_AGENT_IMAGE_GO: $[[ inputs.image_go ]]\n', '');
    expect(edited).not.to.equal(text);
    expect(replaceGeneratedParts(edited, templateEnvironmentParts(), 'agent.yml')).to.equal(text);
  });

  it('a file that lost the lines around a part says which file and which part', () => {
    const text = readFileSync('.gitlab-ci.yml', 'utf8').replace('# /generated:images', '');
    expect(() => replaceGeneratedParts(text, releaseEnvironmentParts(), '.gitlab-ci.yml')).to.throw(
      ".gitlab-ci.yml: expected the lines '# generated:images …' and '# /generated:images'",
    );
  });
});
