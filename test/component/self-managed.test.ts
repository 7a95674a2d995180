import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import pkg from '../../package.json' with { type: 'json' };
import { gitlabCiLocal, REMOTE, tempRoot } from './harness.ts';

/**
 * docs/self-managed.md on a consumer project (gitlab-ci-local): where there is
 * no CI/CD Catalog, the component is included by `project:` + `ref:` from the
 * instance's mirror of mr-agent, at a release tag. The mirror here is a bare
 * repository holding this checkout's templates/ at the package's version tag;
 * git reaches it through a `url.<mirror>.insteadOf` rule for the instance's
 * address, so gitlab-ci-local fetches the template (and the part it includes
 * from its own project) as GitLab would.
 */
const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
const HOST = new URL(REMOTE).origin;
const MIRROR_PATH = 'tools/mr-agent';

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.email=ci@example.com', '-c', 'user.name=CI', ...args], {
    cwd,
    stdio: 'ignore',
  });
}

function consumerFile(inputs: string): string {
  return [
    'include:',
    `  - project: ${MIRROR_PATH}`,
    `    ref: ${pkg.version}`,
    '    file: /templates/agent.yml',
    '    inputs:',
    '      environment: python',
    `      image_registry: registry.example.com/${MIRROR_PATH}`,
    inputs,
    '',
  ].join('\n');
}

describe('#21 self-managed: the component included by `project:` + `ref:` from a mirror (gitlab-ci-local)', function () {
  this.timeout(120_000);
  let temp: ReturnType<typeof tempRoot>;

  /** A consumer project whose gitlab-ci-local HOME sends the mirror's address to the bare repository. */
  function consumer(name: string, inputs: string): string {
    const dir = path.join(temp.root, name);
    mkdirSync(dir);
    writeFileSync(path.join(dir, '.gitlab-ci.yml'), consumerFile(inputs));
    git(dir, 'init', '-q', '-b', 'main');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'consumer');
    git(dir, 'remote', 'add', 'origin', REMOTE);
    git(dir, 'update-ref', 'refs/remotes/origin/main', 'HEAD');
    git(dir, 'symbolic-ref', 'refs/remotes/origin/HEAD', 'refs/remotes/origin/main');
    const home = `${dir}.gcl-home`;
    mkdirSync(home);
    const mirror = `file://${path.join(temp.root, 'mirror.git')}`;
    writeFileSync(
      path.join(home, '.gitconfig'),
      `[url "${mirror}"]\n\tinsteadOf = ${HOST}/${MIRROR_PATH}.git\n`,
    );
    return dir;
  }

  before(() => {
    temp = tempRoot();
    // the instance's mirror of mr-agent, its release tag pushed
    const source = path.join(temp.root, 'mirror-source');
    mkdirSync(source);
    cpSync(path.join(REPO_ROOT, 'templates'), path.join(source, 'templates'), { recursive: true });
    git(source, 'init', '-q', '-b', 'main');
    git(source, 'add', '-A');
    git(source, 'commit', '-qm', 'mr-agent');
    git(source, 'tag', pkg.version);
    const bare = path.join(temp.root, 'mirror.git');
    git(temp.root, 'clone', '-q', '--bare', source, bare);
    git(bare, 'config', 'uploadpack.allowFilter', 'true');
    git(bare, 'config', 'uploadpack.allowAnySHA1InWant', 'true');
  });
  after(() => temp?.remove());

  async function preview(dir: string) {
    const result = await gitlabCiLocal(dir, [
      '--preview',
      '--variable',
      'CI_PIPELINE_SOURCE=web',
      '--variable',
      'MR_AGENT_TASK=fix the importer',
    ]);
    expect(result.exitCode, result.all).to.equal(0);
    return {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a YAML document the test reads
      config: parse(result.stdout.slice(result.stdout.indexOf('---'))) as any,
      log: result.all,
    };
  }

  it('#21 the template and its runner-tags part come from the mirror at the release tag, pass schema validation, and use the instance registry', async () => {
    const dir = consumer('tagged', '      runner_tags: [docker, internal]');

    const { config, log } = await preview(dir);

    expect(log).to.contain(`downloaded ${MIRROR_PATH} ${pkg.version} templates/agent.yml`);
    expect(log).to.contain(
      `downloaded ${MIRROR_PATH} ${pkg.version} templates/parts/runner-tags.yml`,
    );
    const job = config['mr-agent'];
    expect(job.tags).to.deep.equal(['docker', 'internal']);
    expect(JSON.stringify(job.image)).to.contain('/python:');
    expect(job.variables.MR_AGENT_IMAGE_REGISTRY).to.equal(`registry.example.com/${MIRROR_PATH}`);
    expect(job.variables.MR_AGENT_IMAGE_TAG).to.equal(pkg.version);
  });

  it('#21 without runner tags the job from the mirror has no `tags` key', async () => {
    const dir = consumer('untagged', '');

    const { config } = await preview(dir);

    expect(config['mr-agent']).to.not.have.property('tags');
  });
});
