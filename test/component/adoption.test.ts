import { expect } from 'chai';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import type { CommandRequest } from '../../src/commands/note-rules.ts';
import { pipelineInputs, pipelineVariables } from '../../src/commands/variables.ts';
import { documentedHeader, documentedJobRules } from '../support/documented-header.ts';
import {
  activeJobs,
  COMPONENT,
  createProject,
  gitlabCiLocal,
  listJobs,
  tempRoot,
} from './harness.ts';

/**
 * #21 on a consumer project: the `.gitlab-ci.yml` header of docs/ci-component.md
 * (requests as pipeline inputs, agent pipelines named and marked), the
 * workflow recipe that keeps the project's own jobs out of agent pipelines,
 * and the runner tags, `interruptible: false` and resource group of the agent jobs.
 */
/** The consumer's file: the header (the component at this commit), extra inputs, the own jobs. */
function consumerPipeline(extraInputs: Record<string, string> = {}): string {
  const header = documentedHeader().replace(
    '$CI_SERVER_FQDN/mr-agent/mr-agent/agent@0.1.0',
    COMPONENT,
  );
  const extra = Object.entries(extraInputs)
    .map(([k, v]) => `      ${k}: ${v}\n`)
    .join('');
  return header.replace(/(triggered_by: .*\n)/, `$1${extra}`) + '\n' + documentedJobRules();
}

const request: CommandRequest = {
  projectId: 42,
  noteId: 501,
  discussionId: 'd1',
  target: { kind: 'merge_request', iid: 12, sourceBranch: 'feature/importer', fork: false },
  ref: 'feature/importer',
  user: { id: 7, username: 'dana' },
  instruction: 'skip blank rows; keep "$HOME" literal',
  command: 'run',
};

/** gitlab-ci-local's `--input name=<JSON>` for each input the bridge sends. */
function inputArgs(inputs: Record<string, string>): string[] {
  return Object.entries(inputs).flatMap(([k, v]) => ['--input', `${k}=${JSON.stringify(v)}`]);
}

function variableArgs(variables: Record<string, string | undefined>): string[] {
  return Object.entries(variables)
    .filter((e): e is [string, string] => e[1] !== undefined)
    .flatMap(([k, v]) => ['--variable', `${k}=${v}`]);
}

/** `--preview`: the expanded configuration (jobs and the global `variables`). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a YAML document the tests read
type Preview = Record<string, any>;

async function preview(dir: string, args: string[]): Promise<Preview> {
  const result = await gitlabCiLocal(dir, ['--preview', ...args]);
  expect(result.exitCode, result.all).to.equal(0);
  return parse(result.stdout) as Preview;
}

async function active(dir: string, args: string[]): Promise<string[]> {
  const result = await gitlabCiLocal(dir, [
    '--list-json',
    '--json-schema-validation=false',
    ...args,
  ]);
  expect(result.exitCode, result.all).to.equal(0);
  return activeJobs(JSON.parse(result.stdout.slice(result.stdout.indexOf('['))));
}

/** An `mr-agent` that only reports what its job was given. */
function fakeAgent(root: string): string {
  const bin = path.join(root, 'fake-bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(
    path.join(bin, 'mr-agent'),
    [
      '#!/bin/sh',
      'printf "task=%s|\\n" "$MR_AGENT_TASK"',
      'printf "note=%s mr=%s by=%s command=%s\\n" "$MR_AGENT_NOTE_ID" "$MR_AGENT_MR_IID" "$MR_AGENT_TRIGGERED_BY" "$MR_AGENT_COMMAND"',
      'printf "tags=%s\\n" "$MR_AGENT_RUNNER_TAGS"',
      'printf "group=%s\\n" "$MR_AGENT_RESOURCE_GROUP"',
      'printf "image=%s\\n" "$MR_AGENT_IMAGE_PYTHON"',
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
  return bin;
}

describe('#21 adoption on a consumer project (gitlab-ci-local)', function () {
  this.timeout(120_000);
  let temp: ReturnType<typeof tempRoot>;
  let auto: string;
  let python: string;
  const asInputs = [
    '--variable',
    'CI_PIPELINE_SOURCE=trigger',
    ...inputArgs(pipelineInputs(request)),
  ];

  before(() => {
    temp = tempRoot();
    auto = createProject(temp.root, {
      '.gitlab-ci.yml': consumerPipeline({ runner_tags: '[docker, big box]' }),
    });
    python = createProject(temp.root, {
      '.gitlab-ci.yml': consumerPipeline({ environment: 'python', as: 'bot' }),
    });
  });
  after(() => temp?.remove());

  it('#21 the documented header passes schema validation; a push pipeline keeps the own job and has no agent job or name', async () => {
    const jobs = await listJobs(auto);
    const expanded = await preview(auto, []);

    expect(activeJobs(jobs)).to.deep.equal(['unit']);
    expect(expanded.variables?.MR_AGENT_PIPELINE).to.equal(undefined);
  });

  it('#21 O9 the bridge request as pipeline inputs starts the agent jobs, names the pipeline, and leaves the own job out', async () => {
    const expanded = await preview(auto, asInputs);

    expect(await active(auto, asInputs)).to.deep.equal(['mr-agent-plan', 'mr-agent-run']);
    expect(expanded.variables).to.deep.include({
      MR_AGENT_PIPELINE: 'true',
      MR_AGENT_PIPELINE_NAME: 'mr-agent !12',
    });
    expect(expanded['mr-agent-plan'].variables).to.deep.include({
      MR_AGENT_NOTE_ID: '501',
      MR_AGENT_MR_IID: '12',
      MR_AGENT_TRIGGERED_BY: '7',
    });
  });

  it('#21 O9 the inputs reach the one job unexpanded, with the runner tags and the resource group template', async () => {
    const bin = fakeAgent(temp.root);

    const result = await gitlabCiLocal(
      python,
      ['--force-shell-executor', '--json-schema-validation=false', ...asInputs, 'bot'],
      { binDir: bin },
    );

    expect(result.exitCode, result.all).to.equal(0);
    expect(result.stdout).to.contain('task=skip blank rows; keep "$HOME" literal|');
    expect(result.stdout).to.contain('note=501 mr=12 by=7 command=run');
    expect(result.stdout).to.contain('tags={"runner_tags": []}');
    expect(result.stdout).to.contain('group=mr-agent-mr$MR_AGENT_MR_IID-issue$MR_AGENT_ISSUE_IID');
    expect(result.stdout).to.contain('image=registry.gitlab.com/mr-agent/mr-agent/python:0.1.0');
  });

  it('#21 a "Run pipeline" form with only the task and an issue starts the agent and names it after the issue', async () => {
    const args = [
      '--variable',
      'CI_PIPELINE_SOURCE=web',
      ...inputArgs({ mr_agent_task: 'fix it', mr_agent_issue_iid: '5' }),
    ];

    expect(await active(python, args)).to.deep.equal(['bot']);
    expect((await preview(python, args)).variables.MR_AGENT_PIPELINE_NAME).to.equal('mr-agent #5');
  });

  it('#21 the same request as pipeline variables, or a webhook payload, is an agent pipeline too', async () => {
    const asVariables = [
      '--variable',
      'CI_PIPELINE_SOURCE=trigger',
      ...variableArgs(pipelineVariables(request)),
    ];
    const payload = [
      '--variable',
      'CI_PIPELINE_SOURCE=trigger',
      '--variable',
      'TRIGGER_PAYLOAD={}',
    ];

    expect(await active(python, asVariables)).to.deep.equal(['bot']);
    expect((await preview(python, asVariables)).variables.MR_AGENT_PIPELINE).to.equal('true');
    expect(await active(python, payload)).to.deep.equal(['bot']);
  });

  it('#21 O10 runner tags reach every job that runs on a runner, and no `tags` key is there without them; those jobs are not interruptible; the job that pushes has the resource group', async () => {
    const tagged = await preview(auto, asInputs);
    const fixed = await preview(python, asInputs);

    for (const job of [tagged['mr-agent-plan'], fixed.bot]) {
      expect(job.interruptible).to.equal(false);
    }
    expect(tagged['mr-agent-plan'].tags).to.deep.equal(['docker', 'big box']);
    // without runner tags (the default) the key is left out: `tags: []` fails GitLab's CI schema
    expect(fixed.bot).not.to.have.property('tags');
    expect(tagged['mr-agent-plan'].variables.MR_AGENT_RUNNER_TAGS).to.match(
      /^\{"runner_tags": \["docker", ?"big box"\]\}$/,
    );
    expect(fixed.bot.resource_group).to.equal(
      'mr-agent-mr$MR_AGENT_MR_IID-issue$MR_AGENT_ISSUE_IID',
    );
    expect(tagged['mr-agent-run']).not.to.have.property('tags');
  });
});
