import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import type { GitLabStandIn, Scenario } from '../../src/testkit/gitlab-server/index.ts';
import {
  startScriptedOpenAiServer,
  type ScriptedOpenAiServer,
} from '../../src/testkit/openai-server/server.ts';
import { FAREWELL_RUN, scriptedRunVariables, standInJobVariables } from './job-world.ts';
import { runCli } from '../cli/helpers.ts';
import { startCiJobCheckout, type CiJobCheckout } from '../support/ci-job-checkout.ts';

const LLM_KEY = 'sk-ci-steps-secret-4242';

/**
 * `mr-agent ci` up to the start of the run, over real HTTP against the GitLab
 * stand-in, in a real clone of the stand-in's repository: A2 bridge
 * variables, A3 TRIGGER_PAYLOAD, A4 manual runs; M4 access re-checks; M5
 * the named token.
 */
describe('ci/steps (mr-agent ci against the GitLab stand-in)', function () {
  this.timeout(30_000);
  let world: CiJobCheckout;
  let standIn: GitLabStandIn;
  let s: Scenario;
  let root: string;
  let job: string;
  let llm: ScriptedOpenAiServer | undefined;

  function git(cwd: string, ...args: string[]): string {
    return execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
  }

  beforeEach(async () => {
    world = await startCiJobCheckout({ tempPrefix: 'mr-agent-ci-steps-' });
    ({ standIn, s, root, job } = world);
  });
  afterEach(async () => {
    await world.close();
    await llm?.close();
    llm = undefined;
  });

  /** The scripted OpenAI-compatible endpoint over HTTP; a planning refusal when no replies are given. */
  async function model(replies: unknown[] = [{ purpose: 'planning', fault: 'bad_request' }]) {
    llm = await startScriptedOpenAiServer({
      apiKey: LLM_KEY,
      scenario: { replies } as Parameters<typeof startScriptedOpenAiServer>[0]['scenario'],
    });
    return llm;
  }

  function jobEnv(extra: Record<string, string>): Record<string, string> {
    return {
      ...standInJobVariables(standIn, s, { dir: job, home: root }),
      ...scriptedRunVariables(llm, LLM_KEY),
      ...extra,
    };
  }

  /** The payload GitLab would write for a comment, as the file TRIGGER_PAYLOAD names. */
  function payloadFile(body: string, author = s.developer): { file: string; noteId: number } {
    const { note, file } = world.commentPayload(body, author);
    return { file, noteId: note.id };
  }

  it('A3 a comment that is not a command exits 0 with "not a command" and asks GitLab nothing', async () => {
    const { file } = payloadFile('LGTM, thanks!');
    standIn.requests.clear();

    const result = await runCli(['ci'], { env: jobEnv({ TRIGGER_PAYLOAD: file }) });

    expect(result.code).to.equal(0);
    expect(result.stdout).to.match(/^mr-agent: not a command: /);
    expect(standIn.requests.entries).to.have.length(0);
  });

  it('A3/B2 the plan step of a non-command still writes a child pipeline that only says why', async () => {
    const { file } = payloadFile('Nice work');

    const result = await runCli(['ci', '--step', 'plan'], {
      env: jobEnv({ TRIGGER_PAYLOAD: file, MR_AGENT_JOB_NAME: 'bot' }),
    });

    expect(result.code).to.equal(0);
    const child = parse(readFileSync(path.join(job, '.mr-agent/child-pipeline.yml'), 'utf8'));
    expect(Object.keys(child)).to.deep.equal(['stages', 'bot-nothing-to-do']);
  });

  it("A3/H1/H3 a Developer's command is claimed with 👀, runs, pushes to the merge request and leaves the final progress note", async () => {
    await model(FAREWELL_RUN);
    const { file, noteId } = payloadFile('/agent add a farewell function');

    const result = await runCli(['ci'], { env: jobEnv({ TRIGGER_PAYLOAD: file }) });

    expect(result.code, result.stderr).to.equal(0);
    llm!.assertAllUsed();
    // 👀 claimed it, ▶ marks the comment whose job went on as the run
    expect(
      standIn.model.awards.filter((a) => a.noteId === noteId).map((a) => a.name),
    ).to.deep.equal(['eyes', 'arrow_forward']);
    const branchHead = git(s.project.repoDir, 'rev-parse', 'refs/heads/feature/greeting');
    expect(git(s.project.repoDir, 'show', `${branchHead}:src/farewell.js`)).to.contain('Bye');
    expect(git(s.project.repoDir, 'show', '--name-only', '--format=', branchHead)).not.to.match(
      /\.mr-agent/,
    );
    const progress = standIn.model.notes.filter(
      (n) => n.authorId === s.bot.id && n.body.includes('mr-agent:progress'),
    );
    expect(progress).to.have.length(1);
    expect(progress[0]!.body).to.match(
      /mr-agent:progress job=901 pipeline=900 task=\S+ state=complete/,
    );
    expect(progress[0]!.body).to.contain(`/-/commit/${branchHead}`);
    expect(result.stdout + result.stderr)
      .not.to.contain(s.botToken.value)
      .and.not.to.contain(LLM_KEY);
  });

  it("A3/M4 a Guest's command is refused in the job without a run, exit 0", async () => {
    const { file, noteId } = payloadFile('/agent fix the greeting', s.guest);

    const result = await runCli(['ci'], { env: jobEnv({ TRIGGER_PAYLOAD: file }) });

    expect(result.code).to.equal(0);
    expect(result.stdout).to.contain('not authorised: the commenter has the guest role');
    expect(standIn.model.awards.filter((a) => a.noteId === noteId)).to.have.length(0);
  });

  it('A3/A6 `/agent help` is answered in the thread and nothing runs', async () => {
    const { file } = payloadFile('/agent help');
    const before = standIn.model.notes.length;

    const result = await runCli(['ci'], { env: jobEnv({ TRIGGER_PAYLOAD: file }) });

    expect(result.code).to.equal(0);
    expect(result.stdout).to.contain('answered `help` in the thread');
    expect(standIn.model.notes.length).to.equal(before + 1);
  });

  it('A3 a pipeline on the default branch works on the merge request head', async () => {
    await model();
    const mrHead = git(s.project.repoDir, 'rev-parse', 'refs/heads/feature/greeting');
    git(s.project.repoDir, 'update-ref', `refs/merge-requests/${s.mergeRequest.iid}/head`, mrHead);
    git(job, 'checkout', '-q', s.project.defaultBranch);
    const { file } = payloadFile('/agent fix the greeting');

    await runCli(['ci'], {
      env: jobEnv({ TRIGGER_PAYLOAD: file, CI_COMMIT_REF_NAME: s.project.defaultBranch }),
    });

    expect(git(job, 'rev-parse', 'HEAD')).to.equal(mrHead);
    expect(git(job, 'branch', '--show-current')).to.equal('feature/greeting');
  });

  it('A2/M4 a bridge trigger for a Guest is refused with exit 2, naming the user and the role', async () => {
    const result = await runCli(['ci'], {
      env: jobEnv({
        MR_AGENT_NOTE_ID: '5',
        MR_AGENT_TASK: 'fix',
        MR_AGENT_MR_IID: String(s.mergeRequest.iid),
        MR_AGENT_TRIGGERED_BY: String(s.guest.id),
      }),
    });

    expect(result.code).to.equal(2);
    expect(result.stderr).to.contain(`user ${s.guest.id} has the guest role`);
    expect(result.stderr).to.contain('needs at least developer');
  });

  it('A4/M4 a manual run re-checks the pipeline user (GITLAB_USER_ID)', async () => {
    const result = await runCli(['ci'], {
      env: jobEnv({
        CI_PIPELINE_SOURCE: 'web',
        GITLAB_USER_ID: String(s.guest.id),
        MR_AGENT_TASK: 'add a farewell',
        MR_AGENT_ISSUE_IID: String(s.issue.iid),
      }),
    });

    expect(result.code).to.equal(2);
    expect(result.stderr).to.contain(`user ${s.guest.id} has the guest role`);
  });

  it('M5 the token comes from the variable the component names, and never shows in the output', async () => {
    await model();
    const env = jobEnv({
      CI_PIPELINE_SOURCE: 'web',
      GITLAB_USER_ID: String(s.developer.id),
      MR_AGENT_TASK: 'add a farewell',
      MR_AGENT_ISSUE_IID: String(s.issue.iid),
      MR_AGENT_GITLAB_TOKEN_VAR: 'BOT_PAT',
      BOT_PAT: s.botToken.value,
      MR_AGENT_LOG_LEVEL: 'debug',
    });
    delete (env as Record<string, string | undefined>).MR_AGENT_GITLAB_TOKEN;

    const result = await runCli(['ci'], { env });

    expect(result.stderr).to.contain('"message":"request accepted"');
    expect(result.code).to.equal(1);
    expect(result.stdout + result.stderr).not.to.contain(s.botToken.value);
  });

  it('M5 without a token, names the variable to set', async () => {
    const env = jobEnv({ MR_AGENT_TASK: 'x', MR_AGENT_GITLAB_TOKEN_VAR: 'BOT_PAT' });
    delete (env as Record<string, string | undefined>).MR_AGENT_GITLAB_TOKEN;

    const result = await runCli(['ci'], { env });

    expect(result.code).to.equal(2);
    expect(result.stderr).to.contain('BOT_PAT: no GitLab token for the agent');
  });

  it('keeps .mr-agent/ and the caches out of the commit before the run starts', async () => {
    await model();
    await runCli(['ci'], {
      env: jobEnv({
        CI_PIPELINE_SOURCE: 'web',
        MR_AGENT_TASK: 'x',
        GITLAB_USER_ID: String(s.developer.id),
      }),
    });

    expect(existsSync(path.join(job, '.git/info/exclude'))).to.equal(true);
    expect(readFileSync(path.join(job, '.git/info/exclude'), 'utf8')).to.contain(
      '.mr-agent-cache/',
    );
  });
});
