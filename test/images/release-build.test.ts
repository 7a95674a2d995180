import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

/**
 * How the project's release pipeline (.gitlab-ci.yml, job `images`) builds the
 * runner and bridge images: for amd64 and arm64 under one manifest list, with
 * every base image replaceable by a digest-pinned reference through build
 * arguments, and the docs saying what is pinned how.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
interface Job {
  variables?: Record<string, string>;
  script: string[];
}
const pipeline = parse(readFileSync(path.join(ROOT, '.gitlab-ci.yml'), 'utf8')) as Record<
  string,
  Job
>;

describe('#21 O10 release images: two architectures, bases pinnable by digest', () => {
  const images = pipeline['images']!;
  const script = images.script.join('\n');

  it('O10 the images job builds linux/amd64 and linux/arm64 into one manifest and pushes all of it', () => {
    expect(images.variables?.['IMAGE_PLATFORMS']).to.equal('linux/amd64,linux/arm64');
    expect(script).to.match(/buildah build [^\n]*--platform "\$IMAGE_PLATFORMS"/);
    expect(script).to.match(
      /buildah build [^\n]*--manifest "\$CI_REGISTRY_IMAGE\/\$IMAGE:\$CI_COMMIT_TAG"/,
    );
    expect(script).to.match(
      /buildah manifest push --all "\$CI_REGISTRY_IMAGE\/\$IMAGE:\$CI_COMMIT_TAG"/,
    );
    expect(script).not.to.match(/buildah push /);
  });

  it('O10 extra build arguments (digest-pinned bases) reach every image build, and each image its own', () => {
    expect(script).to.match(
      /buildah build \$IMAGE_BUILD_ARGS \$\(printenv "IMAGE_BUILD_ARGS_\$IMAGE"\) /,
    );
  });

  for (const name of readdirSync(path.join(ROOT, 'images'))) {
    it(`O10 ${name}: every FROM names its base through an ARG, so a digest can be given at build time`, () => {
      const froms = readFileSync(path.join(ROOT, 'images', name, 'Dockerfile'), 'utf8')
        .split('\n')
        .filter((line) => /^FROM\s/i.test(line))
        .map((line) => line.trim().split(/\s+/).slice(1));
      const aliases = new Set(froms.map((words) => words[2]).filter(Boolean));
      for (const [ref] of froms) {
        if (aliases.has(ref)) continue;
        expect(ref, `FROM ${ref}`).to.match(/^\$\{\w+\}$/);
      }
    });
  }

  it('O10 docs/self-managed.md names the defaults the release pipeline really has for what a mirror replaces', () => {
    const docs = readFileSync(path.join(ROOT, 'docs/self-managed.md'), 'utf8');
    const ci = pipeline as unknown as {
      variables: Record<string, string>;
      images: { variables: Record<string, string> };
      release: { variables: Record<string, string> };
    };
    const defaults = {
      NODE_IMAGE: ci.variables['NODE_IMAGE'],
      BUILDAH_IMAGE: ci.images.variables['BUILDAH_IMAGE'],
      RELEASE_CLI_IMAGE: ci.release.variables['RELEASE_CLI_IMAGE'],
      IMAGE_PLATFORMS: ci.images.variables['IMAGE_PLATFORMS'],
    };
    for (const [name, value] of Object.entries(defaults))
      expect(docs, name).to.contain(`| \`${name}\` | \`${value}\` |`);
  });

  it('O10 the docs say what the bases are pinned by (version, a digest where you give one)', () => {
    const docs = readFileSync(path.join(ROOT, 'docs/ci-component.md'), 'utf8');
    expect(docs).not.to.contain('pinned by version and digest');
    expect(docs).to.contain('IMAGE_BUILD_ARGS');
    expect(docs).to.contain('linux/arm64');
  });
});
