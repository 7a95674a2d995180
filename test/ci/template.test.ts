import { expect } from 'chai';
import { execa } from 'execa';
import { parseAllDocuments } from 'yaml';
import { readdirSync, readFileSync } from 'node:fs';
import { ENVIRONMENT_JOBS } from '../../src/ci/environments.ts';
import { parseComponentTemplate, type ComponentTemplate } from '../../src/config/template-spec.ts';
import { ENVIRONMENTS, OPTIONS, type OptionDef } from '../../src/config/options.ts';
import pkg from '../../package.json' with { type: 'json' };

const TEMPLATES = readdirSync('templates').filter((f) => f.endsWith('.yml'));
const agent = parseComponentTemplate(readFileSync('templates/agent.yml', 'utf8'), 'agent.yml');

/** Variables the CLI reads that are not options: the request (A2–A4) and the child job's settings. */
const REQUEST_VARIABLES = [
  'PARENT_PIPELINE_ID',
  'MR_AGENT_TASK',
  'MR_AGENT_COMMAND',
  'MR_AGENT_NOTE_ID',
  'MR_AGENT_MR_IID',
  'MR_AGENT_ISSUE_IID',
  'MR_AGENT_TRIGGERED_BY',
  'MR_AGENT_RUNNER_TAGS',
  'MR_AGENT_RESOURCE_GROUP',
];
/** Variables only GitLab reads: the parts of the default image names (#21). */
const IMAGE_PARTS = ['MR_AGENT_IMAGE_REGISTRY', 'MR_AGENT_IMAGE_TAG'];

/** A job variable's value: plain, or `{ value, expand }`. */
function valueOf(variable: unknown): string {
  return typeof variable === 'object' && variable !== null
    ? String((variable as { value: unknown }).value)
    : String(variable);
}

function inputDefault(name: string): unknown {
  return agent.inputs.find((i) => i.name === name)!.default;
}
const GLOBAL_KEYWORDS = [
  'default',
  'include',
  'stages',
  'variables',
  'workflow',
  'image',
  'services',
  'cache',
  'before_script',
  'after_script',
];

function jobs(template: ComponentTemplate): Record<string, Record<string, unknown>> {
  return template.jobs as Record<string, Record<string, unknown>>;
}

function optionByEnv(name: string): OptionDef | undefined {
  return (OPTIONS as readonly OptionDef[]).find((o) => o.env.includes(name));
}

const INPUT_REF = /^\$\[\[ inputs\.([a-z_]+) \]\]$/;

describe('ci/template (templates/*.yml)', () => {
  for (const file of TEMPLATES) {
    it(`B1 every input of ${file} has a type, a default, a description and a group`, () => {
      const template = parseComponentTemplate(readFileSync(`templates/${file}`, 'utf8'), file);

      expect(template.inputs.length).to.be.greaterThan(0);
      for (const input of template.inputs) {
        expect(input, input.name).to.have.property('default');
        expect(input.default, input.name).not.to.equal(undefined);
        expect(input.group, input.name).not.to.equal('');
      }
    });

    it(`B1 ${file} uses no global keywords (only jobs and hidden jobs)`, () => {
      const template = parseComponentTemplate(readFileSync(`templates/${file}`, 'utf8'), file);

      for (const key of Object.keys(template.jobs)) {
        // the one exception: the component's own parts, included from its project
        if (key === 'include') {
          const includes = template.jobs[key] as { local?: string }[];
          for (const include of includes)
            expect(include.local, 'only local parts').to.match(/^\/templates\/parts\/[\w-]+\.yml$/);
          continue;
        }
        expect(GLOBAL_KEYWORDS, key).not.to.include(key);
        expect(key, 'job names come from the `as` input').to.match(/^\.?\$\[\[ inputs\.as \]\]/);
      }
    });
  }

  it('B1 the inputs cover the SPEC list (stage, prefix, LLM, environment, images, loops, switches, access, retention, timeout)', () => {
    const names = agent.inputs.map((i) => i.name);

    expect(names).to.include.members([
      'as',
      'stage',
      'command_prefix',
      'llm_model',
      'llm_base_url',
      'llm_api_key_variable',
      'gitlab_token_variable',
      'environment',
      ...ENVIRONMENTS.map((e) => `image_${e}`),
      'max_loops',
      'planning',
      'reflection',
      'replanning',
      'min_access_level',
      'artifacts_expire_in',
      'timeout',
    ]);
    expect(agent.inputs.find((i) => i.name === 'environment')!.options).to.deep.equal([
      'auto',
      ...ENVIRONMENTS,
    ]);
  });

  it('every job variable the template sets is read by the CLI under that name, with the same default', () => {
    const variables = {
      ...(jobs(agent)['.$[[ inputs.as ]]:rules']!.variables as Record<string, unknown>),
      ...(jobs(agent)['.$[[ inputs.as ]]:job']!.variables as Record<string, unknown>),
    };

    for (const [name, raw] of Object.entries(variables)) {
      const value = valueOf(raw);
      if (REQUEST_VARIABLES.includes(name) || IMAGE_PARTS.includes(name)) {
        expect(value, name).to.contain('$[[ inputs.');
        continue;
      }
      const option = optionByEnv(name);
      expect(option, `${name} is not an environment name in src/config/options.ts`).not.to.equal(
        undefined,
      );
      const inputName = INPUT_REF.exec(value)?.[1];
      const input = agent.inputs.find((i) => i.name === inputName);
      expect(input, `${name} takes its value from an input`).not.to.equal(undefined);
      const expanded = String(input!.default)
        .replace('$MR_AGENT_IMAGE_REGISTRY', String(inputDefault('image_registry')))
        .replace('$MR_AGENT_IMAGE_TAG', String(inputDefault('image_tag')));
      if (input!.default !== '') {
        expect(expanded, `default of input ${inputName} vs option ${option!.key}`).to.equal(
          String(option!.default),
        );
      }
    }
  });

  it('#21 the default images are `<image_registry>/<environment>:<image_tag>`, the tag this release', () => {
    expect(inputDefault('image_tag')).to.equal(pkg.version);
    expect(inputDefault('image_registry')).to.equal('registry.gitlab.com/mr-agent/mr-agent');
    for (const environment of ENVIRONMENTS) {
      expect(inputDefault(`image_${environment}`)).to.equal(
        `$MR_AGENT_IMAGE_REGISTRY/${environment}:$MR_AGENT_IMAGE_TAG`,
      );
    }
  });

  it('#21 a release tag must equal package.json and the image_tag default (scripts/release-version.mjs)', async () => {
    const check = (tag: string) =>
      execa('node', ['scripts/release-version.mjs', '--check', tag], { reject: false });

    const same = await check(pkg.version);
    const other = await check('99.0.0');

    expect(same.exitCode, same.stderr).to.equal(0);
    expect(other.exitCode).to.equal(1);
    expect(other.stderr).to.contain(`tag 99.0.0 is not package.json's version ${pkg.version}`);
  });

  it('#21 every job that runs on a runner takes the runner tags and is not interruptible; the one job that pushes joins the resource group', () => {
    const all = jobs(agent);
    const job = all['.$[[ inputs.as ]]:job']!;
    const runners = Object.entries(all).filter(([, j]) => j.script !== undefined);

    // the tags come from templates/parts/runner-tags.yml, included only when there are any
    expect(job).not.to.have.property('tags');
    const parts = parseAllDocuments(readFileSync('templates/parts/runner-tags.yml', 'utf8'));
    expect(parts[1]!.toJS()['.$[[ inputs.as ]]:job']).to.deep.equal({
      tags: '$[[ inputs.runner_tags ]]',
    });
    expect(all['include']).to.deep.equal([
      {
        local: '/templates/parts/runner-tags.yml',
        inputs: { as: '$[[ inputs.as ]]', runner_tags: '$[[ inputs.runner_tags ]]' },
        rules: [{ if: "'$[[ inputs.runner_tags ]]' != '[]'" }],
      },
    ]);
    expect(job.interruptible).to.equal(false);
    for (const [name, j] of runners) {
      expect(j.extends, name).to.include('.$[[ inputs.as ]]:job');
    }
    expect(all['$[[ inputs.as ]]']!.resource_group).to.equal('$[[ inputs.resource_group ]]');
    expect(inputDefault('runner_tags')).to.deep.equal([]);
    expect(inputDefault('resource_group')).to.equal(
      'mr-agent-mr$MR_AGENT_MR_IID-issue$MR_AGENT_ISSUE_IID',
    );
  });

  it('#21 the request inputs reach every agent job unexpanded, under the names of the pipeline variables', () => {
    const variables = jobs(agent)['.$[[ inputs.as ]]:rules']!.variables as Record<
      string,
      { value: string; expand: boolean }
    >;
    const names = {
      task: 'MR_AGENT_TASK',
      command: 'MR_AGENT_COMMAND',
      note_id: 'MR_AGENT_NOTE_ID',
      mr_iid: 'MR_AGENT_MR_IID',
      issue_iid: 'MR_AGENT_ISSUE_IID',
      triggered_by: 'MR_AGENT_TRIGGERED_BY',
    };

    for (const [input, variable] of Object.entries(names)) {
      expect(variables[variable], variable).to.deep.equal({
        value: `$[[ inputs.${input} ]]`,
        expand: false,
      });
      expect(inputDefault(input)).to.equal('');
    }
  });

  it('M5 no input carries a secret value: secrets are named, never given', () => {
    for (const input of agent.inputs) {
      expect(input.name).not.to.match(/(token|api_key|secret|password)$/i);
    }
  });

  for (const environment of ENVIRONMENTS) {
    it(`B3 the one-job ${environment} image, cache and cache variables match src/ci/environments.ts`, () => {
      const hidden = jobs(agent)[`.$[[ inputs.as ]]:env:${environment}`]!;

      expect(hidden.image).to.equal(`$[[ inputs.image_${environment} ]]`);
      expect(hidden.variables).to.deep.equal(ENVIRONMENT_JOBS[environment].variables);
      expect(hidden.cache).to.deep.equal({
        key: `$[[ inputs.cache_key ]]-${environment}`,
        when: 'always',
        paths: ENVIRONMENT_JOBS[environment].cachePaths,
      });
    });
  }

  it('job scripts are one line calling mr-agent ci', () => {
    const scripts = Object.values(jobs(agent))
      .map((job) => job.script)
      .filter((s) => s !== undefined);

    expect(scripts).to.deep.equal([['mr-agent ci --step all'], ['mr-agent ci --step plan']]);
  });

  it("B2 the run job starts the plan job's child pipeline and hands it the parent pipeline id", () => {
    const run = jobs(agent)['$[[ inputs.as ]]-run']!;

    expect(run.needs).to.deep.equal(['$[[ inputs.as ]]-plan']);
    expect(run.variables).to.deep.equal({ PARENT_PIPELINE_ID: '$CI_PIPELINE_ID' });
    expect(run.extends).to.include('.$[[ inputs.as ]]:rules');
    expect(run.trigger).to.deep.include({
      include: [{ artifact: '.mr-agent/child-pipeline.yml', job: '$[[ inputs.as ]]-plan' }],
      strategy: 'depend',
    });
    expect(REQUEST_VARIABLES).to.include('PARENT_PIPELINE_ID');
  });
});
