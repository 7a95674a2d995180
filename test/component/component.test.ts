import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { renderChildPipeline } from '../../src/ci/child-pipeline.ts';
import { isResolved, resolveConfig } from '../../src/config/resolve.ts';
import { ENVIRONMENTS } from '../../src/config/options.ts';
import pkg from '../../package.json' with { type: 'json' };
import {
  activeJobs,
  COMPONENT,
  createProject,
  gitlabCiLocal,
  installCli,
  listJobs,
  type ListedJob,
  tempRoot,
} from './harness.ts';

/** Schema validation is covered once above; rule checks skip it. */
const fast = { validate: false };
const ALL_ENVIRONMENTS = ['auto', ...ENVIRONMENTS] as const;

const userPipeline = (inputs = '') => `include:
  - component: ${COMPONENT}
${inputs}
stages: [build, test]

unit:
  stage: test
  script: [echo unit tests]
`;

const everyEnvironment = `include:
${ALL_ENVIRONMENTS.map(
  (env) => `  - component: ${COMPONENT}
    inputs:
      as: agent-${env}
      environment: ${env}`,
).join('\n')}

unit:
  script: [echo unit tests]
`;

describe('component (gitlab-ci-local)', function () {
  this.timeout(60_000);
  let temp: ReturnType<typeof tempRoot>;

  before(() => {
    temp = tempRoot();
  });
  after(() => temp?.remove());

  describe('templates', () => {
    it('B1 the template passes schema validation and --preview for every environment input', async () => {
      const dir = createProject(temp.root, { '.gitlab-ci.yml': everyEnvironment });

      const listed = await gitlabCiLocal(dir, ['--list-json']);
      const preview = await gitlabCiLocal(dir, ['--preview']);

      expect(listed.exitCode, listed.all).to.equal(0);
      expect(listed.stderr).to.contain('json schema validated');
      expect(preview.exitCode, preview.all).to.equal(0);
      const expanded = parse(preview.stdout) as Record<
        string,
        { image?: string; script?: string[]; variables?: Record<string, string> }
      >;
      for (const env of ENVIRONMENTS) {
        // `<image_registry>/<env>:<image_tag>`, expanded by GitLab from the job's variables
        expect(expanded[`agent-${env}`]!.image).to.deep.equal({
          name: `$MR_AGENT_IMAGE_REGISTRY/${env}:$MR_AGENT_IMAGE_TAG`,
        });
        expect(expanded[`agent-${env}`]!.variables).to.deep.include({
          MR_AGENT_IMAGE_REGISTRY: 'registry.gitlab.com/mr-agent/mr-agent',
          MR_AGENT_IMAGE_TAG: pkg.version,
        });
      }
      expect(expanded['agent-auto-plan']!.script).to.deep.equal(['mr-agent ci --step plan']);
    });

    const invalid: { name: string; inputs: string; message: string }[] = [
      {
        name: 'an environment outside the options',
        inputs: '    inputs:\n      environment: rust',
        message:
          '`environment` input: `rust` cannot be used because it is not in the list of allowed options.',
      },
      {
        name: 'a string where a number is expected',
        inputs: '    inputs:\n      max_loops: ten',
        message: '`max_loops` input: provided value is not a number.',
      },
      {
        name: 'a job name the `as` regex refuses',
        inputs: "    inputs:\n      as: 'bad name'",
        message: '`as` input: `bad name` does not match required regex',
      },
    ];
    for (const c of invalid) {
      it(`B1 rejects ${c.name} with GitLab's message`, async () => {
        const dir = createProject(temp.root, { '.gitlab-ci.yml': userPipeline(c.inputs) });

        const result = await gitlabCiLocal(dir, ['--preview']);

        expect(result.exitCode).to.equal(1);
        expect(result.all).to.contain(c.message);
      });
    }

    it('B2 the child pipeline the plan job writes passes schema validation for every environment', async () => {
      const config = resolveConfig([]);
      if (!isResolved(config)) throw new Error('default configuration is invalid');
      // one file holding the five child pipelines' jobs (their `stages:` are the same)
      const merged: Record<string, unknown> = {};
      for (const environment of ENVIRONMENTS) {
        const child = renderChildPipeline({
          environment,
          ci: config.config.ci,
          variables: { MR_AGENT_LLM_MODEL: 'gpt-x', MR_AGENT_TEST_COMMAND: 'echo $HOME' },
          origin: { pipelineId: 1, jobId: 2 },
        });
        Object.assign(merged, parse(child));
      }
      const dir = createProject(temp.root, { '.gitlab-ci.yml': stringify(merged) });

      const jobs = await listJobs(dir);

      expect(jobs.map((j) => j.name)).to.deep.equal(ENVIRONMENTS.map((e) => `mr-agent-${e}`));
    });
  });

  describe('rules (B4)', () => {
    let auto: string;
    let python: string;
    before(() => {
      auto = createProject(temp.root, { '.gitlab-ci.yml': userPipeline() });
      python = createProject(temp.root, {
        '.gitlab-ci.yml': userPipeline('    inputs:\n      environment: python\n      as: bot'),
      });
    });

    it('B4 an ordinary push pipeline has no agent job', async () => {
      expect(activeJobs(await listJobs(auto, {}, fast))).to.deep.equal(['unit']);
      expect(activeJobs(await listJobs(python, {}, fast))).to.deep.equal(['unit']);
    });

    it('B4 a merge request pipeline has no agent job, even with MR_AGENT_TASK set', async () => {
      const jobs = await listJobs(
        auto,
        {
          CI_PIPELINE_SOURCE: 'merge_request_event',
          CI_MERGE_REQUEST_IID: '7',
          MR_AGENT_TASK: 'fix it',
        },
        fast,
      );

      expect(activeJobs(jobs)).to.deep.equal(['unit']);
    });

    it('B4 a triggered pipeline without a request has no agent job', async () => {
      expect(
        activeJobs(await listJobs(auto, { CI_PIPELINE_SOURCE: 'trigger' }, fast)),
      ).to.deep.equal(['unit']);
    });

    it('A4/B2 a manual run with MR_AGENT_TASK gets the plan job and the child-pipeline trigger (environment auto)', async () => {
      const jobs = await listJobs(
        auto,
        { CI_PIPELINE_SOURCE: 'web', MR_AGENT_TASK: 'fix it' },
        fast,
      );

      expect(activeJobs(jobs)).to.deep.equal(['mr-agent-plan', 'mr-agent-run', 'unit']);
    });

    it('A2/A3/B2 a bridge trigger or a TRIGGER_PAYLOAD with a fixed environment gets the one job', async () => {
      const bridge = await listJobs(
        python,
        {
          CI_PIPELINE_SOURCE: 'trigger',
          MR_AGENT_NOTE_ID: '5',
          MR_AGENT_TASK: 'x',
        },
        fast,
      );
      const payload = await listJobs(
        python,
        {
          CI_PIPELINE_SOURCE: 'trigger',
          TRIGGER_PAYLOAD: '{}',
        },
        fast,
      );

      expect(activeJobs(bridge)).to.deep.equal(['bot', 'unit']);
      expect(activeJobs(payload)).to.deep.equal(['bot', 'unit']);
    });
  });

  describe('TRIGGER_PAYLOAD (A3)', () => {
    let binDir: string;
    before(async () => {
      binDir = await installCli(temp.root);
    });

    const comment = JSON.stringify({
      object_kind: 'note',
      user: { id: 5, username: 'dev' },
      project: { id: 1217, default_branch: 'main' },
      object_attributes: { id: 77, note: 'LGTM, thanks!', noteable_type: 'MergeRequest' },
      merge_request: { iid: 3, source_branch: 'feature/x' },
    });
    const trigger = [
      '--force-shell-executor',
      '--json-schema-validation=false',
      '--variable',
      'CI_PIPELINE_SOURCE=trigger',
      '--variable',
      `TRIGGER_PAYLOAD=${comment}`,
    ];

    it('A3 a comment that is not a command ends the one agent job with exit 0 and "not a command"', async () => {
      const dir = createProject(temp.root, {
        '.gitlab-ci.yml': userPipeline('    inputs:\n      environment: go\n      as: bot'),
      });

      const result = await gitlabCiLocal(dir, [...trigger, 'bot'], { binDir });

      expect(result.exitCode, result.all).to.equal(0);
      expect(result.stdout).to.contain('bot > mr-agent: not a command: ');
      expect(result.stdout).to.match(/PASS\s+bot/);
    });

    it('A3/B2 in the two-step flow the plan job ends at once and its child pipeline only says why', async () => {
      const dir = createProject(temp.root, { '.gitlab-ci.yml': userPipeline() });

      const result = await gitlabCiLocal(dir, trigger, { binDir });

      expect(result.exitCode, result.all).to.equal(0);
      expect(result.stdout).to.contain('mr-agent-plan > mr-agent: not a command: ');
      expect(result.stdout).to.match(/mr-agent-nothing-to-do > mr-agent: not a command: /);
      expect(result.stdout).not.to.match(/FAIL/);
    });
  });

  describe("the project's own pipeline (B5)", () => {
    it('.gitlab-ci.yml and its smoke child pipeline pass schema validation, on a branch and on a tag', async () => {
      const root = path.resolve(import.meta.dirname, '../..');
      const smoke = 'test/component/pipelines/smoke.gitlab-ci.yml';
      const dir = createProject(temp.root, {
        '.gitlab-ci.yml': readFileSync(path.join(root, '.gitlab-ci.yml'), 'utf8'),
        [smoke]: readFileSync(path.join(root, smoke), 'utf8'),
      });

      const branch = activeJobs(await listJobs(dir));
      const tag = activeJobs(await listJobs(dir, { CI_COMMIT_TAG: '0.1.0', NPM_TOKEN: 'x' }));
      // a mirror on a self-managed instance has no npm token: no npm job, the rest is released
      const mirrorTag = activeJobs(await listJobs(dir, { CI_COMMIT_TAG: '0.1.0' }));
      const child = await gitlabCiLocal(dir, ['--file', smoke, '--list-json']);

      expect(branch).to.deep.equal(['typecheck', 'lint', 'bundle', 'test', 'component-smoke']);
      expect(tag).to.include.members([
        'check-version',
        'images: [node]',
        'images: [go]',
        'images: [bridge]',
        'npm-publish',
        'release',
      ]);
      expect(mirrorTag).to.include.members(['images: [node]', 'release']);
      expect(mirrorTag).not.to.include('npm-publish');
      expect(child.exitCode, child.all).to.equal(0);
    });

    it('#21 on a semver tag the catalog release needs the full test suite and the component smoke test, after the images and the npm package', async () => {
      const root = path.resolve(import.meta.dirname, '../..');
      const dir = createProject(temp.root, {
        '.gitlab-ci.yml': readFileSync(path.join(root, '.gitlab-ci.yml'), 'utf8'),
        'test/component/pipelines/smoke.gitlab-ci.yml': '',
      });

      const jobs = (await listJobs(
        dir,
        { CI_COMMIT_TAG: '1.2.3', NPM_TOKEN: 'x' },
        fast,
      )) as (ListedJob & {
        needs?: { job: string; optional?: boolean }[];
      })[];
      const needs = (name: string) =>
        (jobs.find((j) => j.name === name)?.needs ?? []).map((n) => n.job);
      const config = parse(readFileSync(path.join(root, '.gitlab-ci.yml'), 'utf8'));

      expect(needs('release')).to.include.members([
        'test',
        'component-smoke',
        'images',
        'npm-publish',
      ]);
      expect(needs('npm-publish')).to.include.members(['test', 'component-smoke', 'check-version']);
      // the npm package only where there is a token for it (not on a self-managed mirror)
      const release = jobs.find((j) => j.name === 'release')!.needs!;
      expect(release.find((n) => n.job === 'npm-publish')?.optional).to.equal(true);
      // every image the release jobs use can be replaced by a CI/CD variable (an instance's own copy)
      expect(config.images.image).to.equal('$BUILDAH_IMAGE');
      expect(config.release.image).to.equal('$RELEASE_CLI_IMAGE');
      expect(needs('images: [bridge]')).to.include.members(['test', 'component-smoke']);
      expect(config['npm-publish'].script).to.include('npm publish --provenance --access public');
      expect(config['npm-publish'].id_tokens.SIGSTORE_ID_TOKEN.aud).to.equal('sigstore');
      expect(config['check-version'].script).to.deep.equal([
        'node scripts/release-version.mjs --check "$CI_COMMIT_TAG"',
      ]);
    });
  });
});
