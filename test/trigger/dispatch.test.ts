import { expect } from 'chai';
import { createMemoryLogger } from '../../src/log/logger.ts';
import { Redactor } from '../../src/log/redact.ts';
import {
  dispatchCommand,
  dispatchPrivate,
  type DispatchDeps,
} from '../../src/commands/dispatch.ts';
import type { CommandRequest } from '../../src/commands/note-rules.ts';
import { finishReply } from '../../src/commands/replies.ts';
import { hasUnescapedQuickAction } from '../../src/report/markdown.ts';
import { nonEmptyVariables, pipelineVariables } from '../../src/commands/variables.ts';
import { MemoryGitLab } from './memory-gitlab.ts';
import { noteHook } from './note-hook.ts';

const DEVELOPER = 11;
const GUEST = 12;

type CommentRequest = Extract<CommandRequest, { resume?: undefined }>;

function request(overrides: Partial<CommentRequest> = {}): CommentRequest {
  return {
    command: 'run',
    instruction: 'fix the typo',
    projectId: 5,
    noteId: 1000,
    discussionId: 'd1',
    target: { kind: 'merge_request', iid: 3, sourceBranch: 'feature', fork: false },
    ref: 'feature',
    user: { id: DEVELOPER, username: 'dev' },
    ...overrides,
  };
}

function setup() {
  const gitlab = new MemoryGitLab();
  gitlab.members.set(DEVELOPER, 30).set(GUEST, 10);
  const redactor = new Redactor();
  redactor.add('glpat-supersecret-token');
  const deps: DispatchDeps = {
    gitlab,
    logger: createMemoryLogger({ redactor }).logger,
    redactor,
    minAccessLevel: 30,
    prefix: '/agent',
    start: (r) =>
      gitlab.triggerPipeline(r.projectId, r.ref, 'tok', {
        variables: nonEmptyVariables(pipelineVariables(r)),
      }),
  };
  return { gitlab, deps };
}

describe('A2/A6 dispatchCommand', () => {
  it('A2 a Developer command is claimed with 👀 and starts one pipeline', async () => {
    const { gitlab, deps } = setup();
    const outcome = await dispatchCommand(deps, request());
    expect(outcome.kind).to.equal('started');
    expect(gitlab.awards.size).to.equal(1);
    expect(gitlab.pipelines).to.have.length(1);
    expect(gitlab.pipelines[0]!.variables).to.include({ MR_AGENT_MR_IID: '3' });
  });

  it('A2 a Guest is refused before the claim: no 👀, no pipeline', async () => {
    const { gitlab, deps } = setup();
    const outcome = await dispatchCommand(deps, request({ user: { id: GUEST, username: 'g' } }));
    expect(outcome).to.deep.equal({ kind: 'forbidden', accessLevel: 10 });
    expect(gitlab.calls).to.deep.equal(['accessLevel']);
  });

  it('A2 the same note handled twice starts one pipeline (the award is the claim)', async () => {
    const { gitlab, deps } = setup();
    const outcomes = await Promise.all([
      dispatchCommand(deps, request()),
      dispatchCommand(deps, request()),
    ]);
    expect(outcomes.map((o) => o.kind).sort()).to.deep.equal(['duplicate', 'started']);
    expect(gitlab.pipelines).to.have.length(1);
  });

  it('D1 a new instruction while another run is active joins it: no pipeline, a reply in its thread', async () => {
    const { gitlab, deps } = setup();
    gitlab.addPipeline('feature', 'running', { MR_AGENT_MR_IID: '3' });
    const outcome = await dispatchCommand(deps, request());
    expect(outcome.kind).to.equal('joined');
    expect(gitlab.pipelines).to.have.length(1);
    expect(gitlab.replies[0]!.body).to.include('Joined the running agent run').and.include('#100');
    expect(gitlab.replies[0]!.discussionId).to.equal('d1');
  });

  it('issue 30 `/agent fix this` in a diff thread while a run is active does not join it: "already running" in that thread', async () => {
    const { gitlab, deps } = setup();
    gitlab.addPipeline('feature', 'running', { MR_AGENT_MR_IID: '3' });
    const thread = { discussionId: 'd-diff', path: 'src/calc.js', line: 2 };
    const outcome = await dispatchCommand(
      deps,
      request({ discussionId: 'd-diff', instruction: 'fix this', thread }),
    );
    expect(outcome.kind).to.equal('already-running');
    expect(gitlab.pipelines).to.have.length(1);
    expect(gitlab.replies[0]!.body).to.include('already in progress');
    expect(gitlab.replies[0]!.discussionId).to.equal('d-diff');
  });

  it('A6 a retry while another run is active replies "already running"', async () => {
    const { gitlab, deps } = setup();
    gitlab.addPipeline('feature', 'running', { MR_AGENT_MR_IID: '3' });
    const outcome = await dispatchCommand(deps, request({ command: 'retry', instruction: '' }));
    expect(outcome.kind).to.equal('already-running');
    expect(gitlab.pipelines).to.have.length(1);
    expect(gitlab.replies[0]!.body).to.include('already in progress').and.include('#100');
    expect(gitlab.replies[0]!.discussionId).to.equal('d1');
  });

  it('#23 a reply follows the command\'s language: a Japanese request gets a Japanese "already running" and "nothing to stop"', async () => {
    const { gitlab, deps } = setup();
    gitlab.addPipeline('feature', 'running', { MR_AGENT_MR_IID: '3' });
    await dispatchCommand(
      deps,
      request({ instruction: 'テストが失敗しています。修正してください' }),
    );
    expect(gitlab.replies[0]!.body).to.include('#100').and.not.include('already in progress');
    expect(gitlab.replies[0]!.body).to.match(/[\u3040-\u30ff]/);
    const quiet = setup();
    await dispatchCommand(
      { ...quiet.deps, language: 'ja' },
      request({ command: 'stop', instruction: '' }),
    );
    expect(quiet.gitlab.replies[0]!.body).to.match(/[\u3040-\u30ff]/);
    expect(quiet.gitlab.replies[0]!.body).not.to.include('nothing to stop');
  });

  it('A6 pipelines of another issue on the same branch do not count', async () => {
    const { gitlab, deps } = setup();
    gitlab.addPipeline('main', 'running', { MR_AGENT_ISSUE_IID: '8' });
    const outcome = await dispatchCommand(
      deps,
      request({ target: { kind: 'issue', iid: 9 }, ref: 'main' }),
    );
    expect(outcome.kind).to.equal('started');
  });

  it('A6 a pipeline whose variables cannot be read counts as an agent run', async () => {
    const { gitlab, deps } = setup();
    gitlab.addPipeline('main', 'running', { MR_AGENT_ISSUE_IID: '8' });
    gitlab.variablesError = new Error('403 Forbidden');
    const outcome = await dispatchCommand(
      deps,
      request({ target: { kind: 'issue', iid: 9 }, ref: 'main' }),
    );
    expect(outcome.kind).to.equal('joined');
  });

  it('A3 a zero-infra pipeline counts when its TRIGGER_PAYLOAD is a run command here', async () => {
    const { gitlab, deps } = setup();
    const payload = (note: string, iid: number) =>
      JSON.stringify(noteHook({ note, iid, sourceBranch: 'feature' }));
    gitlab.addPipeline('feature', 'running', { TRIGGER_PAYLOAD: payload('LGTM', 3) });
    gitlab.addPipeline('feature', 'running', { TRIGGER_PAYLOAD: payload('/agent x', 4) });
    gitlab.addPipeline('feature', 'running', { TRIGGER_PAYLOAD: payload('/agent status', 3) });
    expect((await dispatchCommand(deps, request({ noteId: 1 }))).kind).to.equal('started');
    gitlab.pipelines.at(-1)!.status = 'success';
    gitlab.addPipeline('feature', 'running', { TRIGGER_PAYLOAD: payload('/agent fix', 3) });
    expect((await dispatchCommand(deps, request({ noteId: 2 }))).kind).to.equal('joined');
  });

  it('A6 stop cancels the active agent pipeline and says so', async () => {
    const { gitlab, deps } = setup();
    gitlab.addPipeline('feature', 'pending', { MR_AGENT_MR_IID: '3' });
    gitlab.addPipeline('feature', 'success', { MR_AGENT_MR_IID: '3' });
    const outcome = await dispatchCommand(deps, request({ command: 'stop', instruction: '' }));
    expect(outcome.kind).to.equal('stopped');
    expect(gitlab.pipelines.map((p) => p.status)).to.deep.equal(['canceled', 'success']);
    expect(gitlab.replies[0]!.body).to.include('Cancelled the agent run');
  });

  it('A6 stop with nothing active replies so', async () => {
    const { gitlab, deps } = setup();
    const outcome = await dispatchCommand(deps, request({ command: 'stop', instruction: '' }));
    expect(outcome.kind).to.equal('nothing-to-stop');
    expect(gitlab.replies[0]!.body).to.include('nothing to stop');
  });

  it('A6 status replies with the last run', async () => {
    const { gitlab, deps } = setup();
    gitlab.addPipeline('feature', 'failed', { MR_AGENT_MR_IID: '3' });
    gitlab.addPipeline('feature', 'success', { MR_AGENT_MR_IID: '4' });
    const outcome = await dispatchCommand(deps, request({ command: 'status', instruction: '' }));
    expect(outcome).to.deep.include({ kind: 'status' });
    expect(gitlab.replies[0]!.body).to.include('pipeline #100').and.include('Failed');
  });

  it('A1 help replies with usage, every line safe from quick actions', async () => {
    const { gitlab, deps } = setup();
    await dispatchCommand(deps, request({ command: 'help', instruction: '' }));
    const body = gitlab.replies[0]!.body;
    expect(body).to.include('`/agent plan <instruction>`');
    expect(body.split('\n').filter((line) => /^\s*\//.test(line))).to.deep.equal([]);
    expect(body.startsWith('<!-- mr-agent:reply -->')).to.equal(true);
  });

  it('I1 help answers in the language notes.language names (no English template words in Japanese)', async () => {
    const { gitlab, deps } = setup();
    await dispatchCommand(
      { ...deps, language: 'ja' },
      request({ command: 'help', instruction: '' }),
    );
    const body = gitlab.replies[0]!.body;
    expect(body).to.include('mr-agent のコマンド').and.include('`/agent plan <指示>`');
    expect(body).to.not.match(/Commands|instruction|Reply/);
  });

  it('a refused trigger is reported in the thread, without secrets', async () => {
    const { gitlab, deps } = setup();
    gitlab.failTrigger = new Error('400 Bad Request: token glpat-supersecret-token rejected');
    const outcome = await dispatchCommand(deps, request());
    expect(outcome.kind).to.equal('start-failed');
    const body = gitlab.replies[0]!.body;
    expect(body).to.include('Could not start').and.not.include('supersecret');
  });

  it('M3 replies go through the note body pipeline: no line can run a quick action', () => {
    const body = finishReply('ok\n/merge\n  /approve now\n> /close');
    expect(hasUnescapedQuickAction(body)).to.equal(false);
    expect(body).to.include('\\/merge');
  });
});

describe('issue 19 §6 dispatchPrivate', () => {
  it('a command on a confidential issue starts nothing public: one internal note, no reply, no pipeline (issue 19 §6)', async () => {
    const { gitlab, deps } = setup();
    const onIssue = request({ target: { kind: 'issue', iid: 7 }, ref: 'main', instruction: '' });
    const outcomes = await Promise.all([
      dispatchPrivate(deps, onIssue),
      dispatchPrivate(deps, onIssue),
    ]);
    expect(outcomes.map((o) => o.kind).sort()).to.deep.equal(['duplicate', 'refused-private']);
    expect(gitlab.pipelines).to.have.length(0);
    expect(gitlab.replies).to.have.length(0);
    expect(gitlab.internalNotes).to.have.length(1);
    const { body, target } = gitlab.internalNotes[0]!;
    expect(target).to.deep.equal({ kind: 'issue', iid: 7 });
    expect(body).to.contain('confidential issue').and.contain('started nothing');
    expect(hasUnescapedQuickAction(body)).to.equal(false);
  });

  it('a Guest gets no internal reply either (issue 19 §6)', async () => {
    const { gitlab, deps } = setup();
    const outcome = await dispatchPrivate(deps, request({ user: { id: GUEST, username: 'g' } }));
    expect(outcome.kind).to.equal('forbidden');
    expect(gitlab.internalNotes).to.have.length(0);
  });
});
