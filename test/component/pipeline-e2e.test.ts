import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { parse, stringify } from 'yaml';
import path from 'node:path';
import { parseMarker } from '../../src/report/marker.ts';
import { startGitLabStandIn, type GitLabStandIn } from '../../src/testkit/gitlab-server/index.ts';
import type {
  MergeRequestRec,
  ProjectRec,
  UserRec,
} from '../../src/testkit/gitlab-server/records.ts';
import {
  startScriptedOpenAiServer,
  type ScriptedOpenAiServer,
} from '../../src/testkit/openai-server/server.ts';
import { action, assessment, planWith } from '../support/plans.ts';
import { COMPONENT, gitlabCiLocal, installCli, REMOTE, tempRoot } from './harness.ts';

const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
const LLM_KEY = 'sk-component-e2e-5150';
const FAREWELL = 'export function farewell(name) {\n  return `Bye, ${name}!`;\n}\n';

/** The user's project: a small node package that includes the component (environment auto). */
function projectFiles(llmUrl: string, environment: string): Record<string, string> {
  return {
    // gitlab-ci-local keeps its state in the project folder; a user of it ignores that folder
    '.gitignore': '.gitlab-ci-local/\n',
    'package.json': '{\n  "name": "app",\n  "version": "1.0.0",\n  "type": "module"\n}\n',
    'src/greet.js': "export function greet(name) {\n  return 'Hello ' + name;\n}\n",
    '.gitlab-ci.yml': `include:
  - component: ${COMPONENT}
    inputs:
      environment: ${environment}
      llm_model: scripted-model
      llm_base_url: ${llmUrl}
      replanning: false
      review: false
      runner_tags: [docker, agent]

stages: [build, test]

unit:
  stage: test
  rules:
    - if: $CI_PIPELINE_SOURCE == "push"
  script: [echo unit tests]
`,
  };
}

const replies = [
  {
    purpose: 'planning',
    json: planWith([action('task_1', 'Add farewell()')], ['farewell() exists']),
  },
  {
    purpose: 'execution',
    tool_calls: [{ name: 'write_file', arguments: { path: 'src/farewell.js', content: FAREWELL } }],
  },
  { purpose: 'execution', content: 'DONE: added farewell()' },
  { purpose: 'completion', json: assessment(true) },
];

interface World {
  standIn: GitLabStandIn;
  llm: ScriptedOpenAiServer;
  project: ProjectRec;
  mergeRequest: MergeRequestRec;
  bot: UserRec;
  developer: UserRec;
  botToken: string;
}

async function startWorld(root: string, environment: string): Promise<World> {
  const standIn = await startGitLabStandIn({ root: path.join(root, 'gitlab') });
  const llm = await startScriptedOpenAiServer({
    apiKey: LLM_KEY,
    scenario: { replies } as Parameters<typeof startScriptedOpenAiServer>[0]['scenario'],
  });
  const model = standIn.model;
  const bot = model.addUser({ username: 'mr-agent-bot', name: 'mr-agent', bot: true });
  const botToken = model.addToken(bot.id, { scopes: ['api'], name: 'mr-agent' }).value;
  const developer = model.addUser({ username: 'dana', name: 'Dana Developer' });
  const files = projectFiles(llm.url, environment);
  const project = await model.addProject({ path: 'acme/app', files });
  model.addMember(project, bot.id, 30);
  model.addMember(project, developer.id, 30);
  await model.commit(
    project,
    'feature/farewell',
    { 'README.md': '# app\n' },
    {
      from: project.defaultBranch,
      message: 'Start the farewell feature',
    },
  );
  const mergeRequest = model.createMergeRequest({
    project,
    sourceBranch: 'feature/farewell',
    title: 'Add farewell()',
    authorId: developer.id,
  });
  return { standIn, llm, project, mergeRequest, bot, developer, botToken };
}

/** The runner's checkout: the merge request's branch, with the remote gitlab-ci-local resolves the component from. */
function checkout(world: World, root: string): string {
  const dir = path.join(root, 'checkout');
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
  execFileSync('git', [
    'clone',
    '-q',
    '-b',
    world.mergeRequest.sourceBranch,
    world.project.repoDir,
    dir,
  ]);
  // the component at this commit is the one under test
  cpSync(path.join(REPO_ROOT, 'templates'), path.join(dir, 'templates'), { recursive: true });
  git('add', 'templates');
  git('-c', 'user.email=ci@example.com', '-c', 'user.name=CI', 'commit', '-qm', 'component');
  git('push', '-q', 'origin', `HEAD:${world.mergeRequest.sourceBranch}`);
  git('remote', 'set-url', 'origin', REMOTE);
  git('update-ref', 'refs/remotes/origin/main', 'HEAD');
  git('symbolic-ref', 'refs/remotes/origin/HEAD', 'refs/remotes/origin/main');
  return dir;
}

interface PipelineRun {
  world: World;
  dir: string;
  result: Awaited<ReturnType<typeof gitlabCiLocal>>;
}

/** A manual pipeline ("Run pipeline" with MR_AGENT_TASK and MR_AGENT_MR_IID) of the fixture project. */
async function manualPipeline(root: string, environment: string): Promise<PipelineRun> {
  mkdirSync(root, { recursive: true });
  const world = await startWorld(root, environment);
  const dir = checkout(world, root);
  const binDir = await installCli(root);
  // what "Run pipeline" is given, and the project's CI/CD variables (the secrets masked there);
  // gitlab-ci-local hands the variables file, not --variable, to a child pipeline as well
  const pipelineVariables = {
    CI_PIPELINE_SOURCE: 'web',
    GITLAB_USER_ID: String(world.developer.id),
    MR_AGENT_TASK: 'add a farewell function',
    MR_AGENT_MR_IID: String(world.mergeRequest.iid),
  };
  const projectVariables = {
    CI_PROJECT_ID: String(world.project.id),
    MR_AGENT_GITLAB_URL: world.standIn.url,
    MR_AGENT_GITLAB_TOKEN: world.botToken,
    OPENAI_API_KEY: LLM_KEY,
    MR_AGENT_ENVIRONMENT_SETUP: 'false',
    MR_AGENT_TEST_COMMAND: 'test -f src/farewell.js',
    // gitlab-ci-local is a shell executor: our own fixture accepts the risk where it is not root (issue 19 §3)
    MR_AGENT_ISOLATION: 'accept-risk',
    REFLECTION_INTERVAL: '0',
  };
  const variablesFile = path.join(root, 'ci-variables.yml');
  writeFileSync(variablesFile, stringify(projectVariables));
  const args = [
    '--force-shell-executor',
    '--json-schema-validation=false',
    '--concurrency',
    '1',
    '--variables-file',
    variablesFile,
  ];
  for (const [name, value] of Object.entries(pipelineVariables))
    args.push('--variable', `${name}=${value}`);
  const result = await gitlabCiLocal(dir, args, {
    binDir,
    timeoutMs: 150_000,
    env: { GCL_IGNORE_PREDEFINED_VARS: 'CI_PIPELINE_SOURCE,CI_PROJECT_ID,GITLAB_USER_ID' },
  });
  return { world, dir, result };
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' });
}

/** H1/H3 as a user sees it: one progress note in its final state, and the commit on the branch. */
function expectFinalNoteAndCommit({ world, result }: PipelineRun): void {
  const notes = world.standIn.model.notes.filter(
    (n) => n.authorId === world.bot.id && parseMarker(n.body)?.kind === 'progress',
  );
  expect(notes).to.have.length(1);
  const note = notes[0]!.body;
  expect(parseMarker(note)?.state).to.equal('complete');
  expect(note).to.contain('### ✅ Done · add a farewell function');
  expect(note).to.contain('**Next:** review [the commit]');
  expect(note).to.contain('Add farewell()');
  const repo = world.project.repoDir;
  const head = git(repo, 'rev-parse', `refs/heads/${world.mergeRequest.sourceBranch}`).trim();
  expect(note).to.contain(`/-/commit/${head}`);
  expect(git(repo, 'show', `${head}:src/farewell.js`)).to.equal(FAREWELL);
  expect(git(repo, 'show', '--name-only', '--format=', head).trim()).to.equal('src/farewell.js');
  expect(result.all).not.to.contain(LLM_KEY).and.not.to.contain(world.botToken);
  // nothing that is not a secret is masked (the cache key input once was)
  expect(result.all + note).not.to.contain('[MASKED]');
}

describe('component e2e (gitlab-ci-local): a manual pipeline with MR_AGENT_TASK', function () {
  this.timeout(180_000);
  let temp: ReturnType<typeof tempRoot>;

  before(() => {
    temp = tempRoot();
  });
  after(() => temp?.remove());

  describe('environment auto: plan job, then the child pipeline (B2)', () => {
    let run: PipelineRun;
    before(async () => {
      run = await manualPipeline(path.join(temp.root, 'auto'), 'auto');
    });
    after(async () => {
      await run?.world.standIn.close();
      await run?.world.llm.close();
    });

    it('B2 the planning job plans and writes the child pipeline for the chosen environment', () => {
      expect(run.result.all).to.match(/PASS\s+mr-agent-plan/);
      const child = readFileSync(path.join(run.dir, '.mr-agent/child-pipeline.yml'), 'utf8');
      expect(child).to.contain('mr-agent-node:');
      expect(child).to.contain('mr-agent ci --step run');
      expect(existsSync(path.join(run.dir, '.mr-agent/ci-handoff.json'))).to.equal(true);
    });

    it("#21 O10 the generated child job takes the component's runner tags, is not interruptible and joins the merge request's resource group", () => {
      const child = parse(
        readFileSync(path.join(run.dir, '.mr-agent/child-pipeline.yml'), 'utf8'),
      ) as Record<string, Record<string, unknown>>;
      const job = child['mr-agent-node']!;

      expect(job.tags).to.deep.equal(['docker', 'agent']);
      expect(job.interruptible).to.equal(false);
      expect(job.resource_group).to.equal('mr-agent-mr$MR_AGENT_MR_IID-issue$MR_AGENT_ISSUE_IID');
      expect(job.variables).to.deep.include({
        MR_AGENT_MR_IID: String(run.world.mergeRequest.iid),
      });
      // the plan job's MR_AGENT_IMAGE_NODE, `<image_registry>/node:<image_tag>` as the runner expands it
      expect(job.image).to.equal('registry.gitlab.com/mr-agent/mr-agent/node:0.1.0');
    });

    it('B2 the run job of the child pipeline finishes', () => {
      expect(run.result.all, run.result.all).to.match(/PASS\s+\[mr-agent-run\] -> mr-agent-node/);
      expect(run.result.all).not.to.match(/FAIL/);
      expect(run.result.exitCode, run.result.all).to.equal(0);
      run.world.llm.assertAllUsed();
    });

    it('H1/H3 the stand-in holds the one final progress note and the pushed commit', () => {
      expectFinalNoteAndCommit(run);
    });
  });

  describe('environment node: one job does everything', () => {
    let run: PipelineRun;
    before(async () => {
      run = await manualPipeline(path.join(temp.root, 'node'), 'node');
    });
    after(async () => {
      await run?.world.standIn.close();
      await run?.world.llm.close();
    });

    it('B2 the one agent job runs the whole task and passes', () => {
      expect(run.result.all, run.result.all).to.match(/PASS\s+mr-agent\s/);
      expect(run.result.all).not.to.match(/mr-agent-plan|FAIL/);
      expect(run.result.exitCode).to.equal(0);
      run.world.llm.assertAllUsed();
    });

    it('H1/H3 the stand-in holds the one final progress note and the pushed commit', () => {
      expectFinalNoteAndCommit(run);
    });
  });
});
