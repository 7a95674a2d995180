import { expect } from 'chai';
import {
  existsSync,
  chmodSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config/load.ts';
import { FakeClock } from '../../src/core/clock.ts';
import { createGitLabClient } from '../../src/gitlab/gitbeaker-adapter.ts';
import { createMemoryLogger } from '../../src/log/logger.ts';
import { Redactor } from '../../src/log/redact.ts';
import type { MergeRequestRec, ProjectRec } from '../../src/testkit/gitlab-server/records.ts';
import { startBridge } from '../../src/trigger/bridge.ts';
import { bridgeGitLabFromPort } from '../../src/commands/gitlab-bridge.ts';
import type { RunningBridge } from '../../src/trigger/server.ts';
import { action, assessment, planWith } from '../support/plans.ts';
import { deliver, SECRET } from '../trigger/http-client.ts';
import { noteHook } from '../trigger/note-hook.ts';
import { FAREWELL, JobWorld, LLM_KEY } from './job-world.ts';

/** A plan that installs (npm runs `preinstall`) and whose action runs the tests itself. */
const plan = {
  ...planWith([action('task_1', 'Add farewell()')], ['farewell() exists']),
  selected_environment: {
    name: 'node',
    reason: 'package.json exists',
    detected_files: ['package.json'],
    setup_commands: ['npm install --no-audit --no-fund'],
    verification: [{ command: 'node -e \'console.log("OK")\'', expected_output: 'OK' }],
  },
};
const replies = [
  { purpose: 'planning', json: plan },
  {
    purpose: 'execution',
    tool_calls: [{ name: 'write_file', arguments: { path: 'src/farewell.js', content: FAREWELL } }],
  },
  {
    purpose: 'execution',
    tool_calls: [{ name: 'run_command', arguments: { command: 'npm test' } }],
  },
  { purpose: 'execution', content: 'DONE: added farewell()' },
  { purpose: 'completion', json: assessment(true) },
];

interface ForkMr {
  fork: ProjectRec;
  mr: MergeRequestRec;
}

/**
 * An outsider's fork whose `package.json` runs code on install (`preinstall`)
 * and on `npm test`; each writes a canary file into `canaryDir`, outside the
 * checkout. Its merge request allows commits from members.
 */
async function forkWithCanaries(world: JobWorld, canaryDir: string): Promise<ForkMr> {
  const model = world.standIn.model;
  const outsider = model.addUser({ username: 'outsider', name: 'Otto Outsider' });
  const fork = await model.addProject({ path: 'outsider/app', forkOf: world.s.project });
  model.addMember(fork, outsider.id, 50);
  const pkg = {
    name: 'app',
    version: '1.0.0',
    private: true,
    scripts: {
      preinstall: `touch '${canaryDir}/preinstall'`,
      test: `touch '${canaryDir}/test'`,
    },
  };
  await model.commit(
    fork,
    'fix',
    { 'package.json': `${JSON.stringify(pkg, null, 2)}\n` },
    { from: 'main', message: 'Add package.json' },
  );
  const mr = model.createMergeRequest({
    project: world.s.project,
    sourceProject: fork,
    sourceBranch: 'fix',
    title: 'Fork fix',
    authorId: outsider.id,
    allowCollaboration: true,
  });
  await model.updateMergeRequestRef(mr);
  return { fork, mr };
}

/**
 * The webhook bridge on the world's stand-in (real HTTP both ways): a
 * Developer's `/agent` comment on the fork's merge request, delivered as
 * GitLab would; returns the pipeline it triggered.
 */
async function triggerThroughBridge(world: JobWorld, forkMr: ForkMr, sets: string[]) {
  const { standIn, s } = world;
  const triggerToken = standIn.model.addTriggerToken(s.project, s.maintainer.id).value;
  const env = {
    MR_AGENT_GITLAB_URL: standIn.url,
    MR_AGENT_GITLAB_TOKEN: s.botToken.value,
    MR_AGENT_WEBHOOK_SECRET: SECRET,
    MR_AGENT_TRIGGER_TOKEN: triggerToken,
  };
  const base = ['serve.port=0', 'serve.host=127.0.0.1', 'trigger.pass_as=variables'];
  const { config } = await loadConfig({ env, file: null, sets: [...base, ...sets] });
  const redactor = new Redactor();
  redactor.addFromEnv(env);
  const { logger } = createMemoryLogger({ redactor, format: 'json', level: 'info' });
  const port = createGitLabClient({
    url: standIn.url,
    token: s.botToken.value,
    clock: new FakeClock(),
    retry: { timeoutMs: 5000 },
  });
  const bridge: RunningBridge = await startBridge({
    config,
    gitlab: bridgeGitLabFromPort(port),
    logger,
    redactor,
  });
  try {
    const body = '/agent add a farewell function';
    const note = standIn.model.addNote({ on: forkMr.mr, body, authorId: s.developer.id });
    const hook = noteHook({
      note: body,
      noteId: note.id,
      user: { id: s.developer.id, username: s.developer.username },
      projectId: s.project.id,
      defaultBranch: s.project.defaultBranch,
      on: 'merge_request',
      iid: forkMr.mr.iid,
      sourceBranch: forkMr.mr.sourceBranch,
      sourceProjectId: forkMr.fork.id,
      discussionId: note.discussionId,
    });
    expect((await deliver(bridge.url, hook)).status).to.equal(202);
    await bridge.idle();
  } finally {
    await bridge.close();
  }
  const triggered = standIn.model.pipelines.filter((p) => p.source === 'trigger');
  expect(triggered).to.have.length(1);
  return triggered[0]!;
}

/** The job's secrets as project CI/CD variables: protected, as GitLab's form sets them. */
function protectedSecrets(world: JobWorld): void {
  const { model } = world.standIn;
  model.addCiVariable(world.s.project, 'MR_AGENT_GITLAB_TOKEN', world.s.botToken.value);
  model.addCiVariable(world.s.project, 'OPENAI_API_KEY', LLM_KEY);
}

const jobSettings = {
  // setup on, and no configured test command: verification runs what it detects (`npm test`)
  MR_AGENT_ENVIRONMENT_SETUP: 'true',
  MR_AGENT_TEST_COMMAND: '',
};

/**
 * Issue 19 §1: a fork's code never runs where the project's secrets are.
 * Over the stand-ins: GitLab (HTTP, git), the bridge (HTTP webhook), the
 * model (HTTP), `mr-agent ci` in-process with real commands in temp dirs.
 */
describe('ci/fork-code (issue 19 §1: a fork merge request and the project secrets)', function () {
  this.timeout(90_000);
  let world: JobWorld;
  let canaryDir: string;

  beforeEach(async () => {
    world = await JobWorld.start();
    canaryDir = mkdtempSync(path.join(os.tmpdir(), 'mr-agent-canary-'));
    // commands may run as another, unprivileged user (issue 19 §3): any user may leave a canary
    chmodSync(canaryDir, 0o777);
  });
  afterEach(async () => {
    await world.close();
    rmSync(canaryDir, { recursive: true, force: true });
  });

  it('issue 19 §1 a fork whose `preinstall` and `test` write a canary leaves no canary: the agent edits and delivers a patch', async () => {
    const forkMr = await forkWithCanaries(world, canaryDir);
    protectedSecrets(world);
    const forkHead = world.git(forkMr.fork.repoDir, 'rev-parse', 'refs/heads/fix');
    const pipeline = await triggerThroughBridge(world, forkMr, []);
    expect(pipeline.ref).to.equal('main');

    const job = await world.job({
      replies,
      pipeline,
      projectVariables: true,
      variables: { ...pipeline.variables, ...jobSettings },
    });

    expect(readdirSync(canaryDir), 'canary files').to.deep.equal([]);
    expect(job.code, job.stderr).to.equal(3);
    job.llm.assertAllUsed();
    for (const request of job.llm.requests)
      expect(request.toolNames, request.purpose).not.to.include('run_command');
    const execution = job.llm.requests.find((r) => r.purpose === 'execution')!;
    expect(JSON.stringify(execution.messages[0]))
      .to.contain("This repository's code is not run")
      .and.to.contain('no `run_command` tool');
    // the agent's own git still runs (the completion check reads `git status`)
    const completion = job.llm.requests.find((r) => r.purpose === 'completion')!;
    expect(JSON.stringify(completion.messages))
      .to.contain('Not run: this merge request comes from a fork')
      .and.to.contain('?? src/farewell.js');
    expect(existsSync(path.join(job.dir, 'package-lock.json'))).to.equal(false);
    // nothing pushed to the fork, the change is a patch note and an artifact
    expect(world.git(forkMr.fork.repoDir, 'rev-parse', 'refs/heads/fix')).to.equal(forkHead);
    const notes = world.standIn.model.notesOf('MergeRequest', forkMr.mr.id);
    const patch = notes.find((n) => n.body.includes('mr-agent:patch'))?.body ?? '';
    expect(patch).to.contain('+export function farewell(name) {');
    expect(patch).to.contain('trigger.forks: run');
    // one note per run: the progress note and the patch, which closes the run and @mentions the requester
    const botNotes = notes.filter(
      (n) => n.authorId === world.s.bot.id && /mr-agent:(progress|patch|summary)/.test(n.body),
    );
    expect(botNotes.map((n) => /mr-agent:(\w+)/.exec(n.body)![1])).to.deep.equal([
      'progress',
      'patch',
    ]);
    expect(patch).to.contain(
      `@${world.s.developer.username}, Nothing was pushed to the fork by policy`,
    );
    // a push skipped by policy says so, once, with the opt-in named
    expect(patch).to.contain('not pushed to `fix` by policy').and.not.contain('could not push');
    expect(patch.match(/not run/g), 'the fork notice in the patch note').to.have.length(1);
    expect(readFileSync(path.join(job.dir, '.mr-agent/patch.diff'), 'utf8')).to.contain(
      'src/farewell.js',
    );
    const progress = notes.find((n) => n.body.includes('mr-agent:progress'))?.body ?? '';
    expect(progress).to.contain('setup skipped');
    expect(progress).to.contain("the fork's code was not run");
  });

  it("issue 19 §1 `trigger.forks: run` is an opt-in: the bridge triggers the MR's own ref, without protected variables, and the fork's install and tests run", async () => {
    const forkMr = await forkWithCanaries(world, canaryDir);
    const { model } = world.standIn;
    // the opt-in's price: the job's own secrets must reach unprotected refs
    model.addCiVariable(world.s.project, 'MR_AGENT_GITLAB_TOKEN', world.s.botToken.value, {
      protected: false,
    });
    model.addCiVariable(world.s.project, 'OPENAI_API_KEY', LLM_KEY, { protected: false });
    model.addCiVariable(world.s.project, 'DEPLOY_TOKEN', 'deploy-secret-0042');
    const pipeline = await triggerThroughBridge(world, forkMr, ['trigger.forks=run']);
    expect(pipeline.ref).to.equal(`refs/merge-requests/${forkMr.mr.iid}/head`);
    expect(pipeline.protectedRef).to.equal(false);
    expect(model.jobVariables(pipeline)).not.to.have.property('DEPLOY_TOKEN');

    const job = await world.job({
      replies,
      pipeline,
      projectVariables: true,
      variables: { ...pipeline.variables, ...jobSettings, MR_AGENT_TRIGGER_FORKS: 'run' },
    });

    expect(job.code, job.stderr).to.be.oneOf([0, 3]);
    expect(readdirSync(canaryDir).sort(), 'canary files').to.deep.equal(['preinstall', 'test']);
    const execution = job.llm.requests.filter((r) => r.purpose === 'execution');
    expect(execution[0]?.toolNames).to.include('run_command');
    expect(JSON.stringify(execution[0]?.messages[0])).not.to.contain('code is not run');
  });

  it("issue 19 §1 with `trigger.forks: run` a pipeline on the protected default branch still runs none of the fork's code", async () => {
    const forkMr = await forkWithCanaries(world, canaryDir);
    protectedSecrets(world);
    const noteId = world.standIn.model.addNote({
      on: forkMr.mr,
      body: '/agent add a farewell function',
      authorId: world.s.developer.id,
    }).id;

    const job = await world.job({
      replies,
      ref: world.s.project.defaultBranch,
      projectVariables: true,
      variables: {
        ...jobSettings,
        MR_AGENT_TRIGGER_FORKS: 'run',
        MR_AGENT_SOURCE: 'note',
        MR_AGENT_COMMAND: 'run',
        MR_AGENT_TASK: 'add a farewell function',
        MR_AGENT_NOTE_ID: String(noteId),
        MR_AGENT_MR_IID: String(forkMr.mr.iid),
        MR_AGENT_TRIGGERED_BY: String(world.s.developer.id),
      },
    });

    expect(readdirSync(canaryDir), 'canary files').to.deep.equal([]);
    expect(job.code, job.stderr).to.equal(3);
    const notes = world.standIn.model.notesOf('MergeRequest', forkMr.mr.id);
    const patch = notes.find((n) => n.body.includes('mr-agent:patch'))?.body ?? '';
    expect(patch).to.contain('runs on the protected ref `main`');
    expect(patch).to.contain('by policy').and.not.contain('could not push');
  });

  it('issue 19 §1 an external coding CLI (`runner.worker.kind`) is not started for a fork: the builtin tools do the work', async () => {
    const forkMr = await forkWithCanaries(world, canaryDir);
    protectedSecrets(world);
    const bin = mkdtempSync(path.join(os.tmpdir(), 'mr-agent-fake-cli-'));
    writeFileSync(path.join(bin, 'codex'), `#!/bin/sh\ntouch '${canaryDir}/worker'\n`, {
      mode: 0o755,
    });
    const pipeline = await triggerThroughBridge(world, forkMr, []);

    try {
      const job = await world.job({
        replies,
        pipeline,
        projectVariables: true,
        variables: {
          ...pipeline.variables,
          ...jobSettings,
          MR_AGENT_WORKER: 'codex-cli',
          CODEX_API_KEY: 'sk-codex-test-0001',
          PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`,
        },
      });

      expect(readdirSync(canaryDir), 'canary files').to.deep.equal([]);
      expect(job.code, job.stderr).to.equal(3);
      job.llm.assertAllUsed();
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });
});
