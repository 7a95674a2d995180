import { expect } from 'chai';
import type { IssueRec, MergeRequestRec } from '../../src/testkit/gitlab-server/index.ts';
import { documentedHeader } from '../support/documented-header.ts';
import { startBridgeWorld, type BridgeWorld } from './bridge-world.ts';
import { deliver } from './http-client.ts';

/**
 * #21 / O9 over real HTTP: the bridge passes the request as pipeline inputs to a
 * project that declares them (the documented header), falls back to variables
 * for one that does not, and explains GitLab.com's "Minimum role to use pipeline
 * variables" when GitLab refuses the variables. The GitLab stand-in answers as
 * GitLab does (doc/api/pipeline_triggers.md, doc/ci/inputs).
 */
const SETTING = 'Settings → CI/CD → Variables → "Minimum role to use pipeline variables"';

describe('#21 O9 requests as pipeline inputs (bridge ⇄ GitLab stand-in)', function () {
  this.timeout(20_000);
  let w: BridgeWorld;

  async function start(passAs: 'auto' | 'inputs' | 'variables', options: { header: boolean }) {
    w = await startBridgeWorld({ sets: [`trigger.pass_as=${passAs}`] });
    if (options.header) {
      const files = { '.gitlab-ci.yml': documentedHeader() };
      await w.standIn.model.commit(w.s.project, w.s.project.defaultBranch, files);
      await w.standIn.model.commit(w.s.project, w.s.mergeRequest.sourceBranch, files);
    }
  }
  afterEach(() => w?.close());

  const forbidVariables = () => (w.s.project.pipelineVariablesMinimumRole = 'no_one_allowed');
  async function command(body: string, on: MergeRequestRec | IssueRec = w.s.mergeRequest) {
    const { hook, note } = w.comment(on, w.s.developer, body);
    await deliver(w.bridges[0]!.url, hook);
    await w.idle();
    const replies = w.standIn.model.notes.filter(
      (n) => n.discussionId === note.discussionId && n.id !== note.id,
    );
    return { note, replies };
  }
  const running = () => w.triggerPipelines().filter((p) => p.status !== 'failed');

  it('#21 auto: a project with the documented header gets the request as inputs, named after the merge request, even with pipeline variables forbidden', async () => {
    await start('auto', { header: true });
    forbidVariables();

    const { note, replies } = await command('/agent fix the "typo" in $HOME');

    expect(w.triggerPipelines()).to.have.length(1);
    const [pipeline] = w.triggerPipelines();
    expect(pipeline!.status).to.equal('pending');
    expect(pipeline!.variables).to.deep.equal({});
    expect(pipeline!.inputs).to.deep.equal({
      mr_agent_task: 'fix the "typo" in $HOME',
      mr_agent_command: 'run',
      mr_agent_note_id: String(note.id),
      mr_agent_mr_iid: String(w.s.mergeRequest.iid),
      mr_agent_triggered_by: String(w.s.developer.id),
    });
    expect(pipeline!.name).to.equal(`mr-agent !${w.s.mergeRequest.iid}`);
    expect(replies).to.have.length(0);
  });

  it('#21 A6 D1 a pipeline started with inputs is found by its name: a new instruction joins it, status and stop', async () => {
    await start('inputs', { header: true });
    forbidVariables();
    await command('/agent fix it');
    const [pipeline] = w.triggerPipelines();
    w.standIn.model.setPipelineStatus(pipeline!.id, 'running');

    const second = await command('/agent also rename greet');
    const onIssue = await command('/agent add farewell()', w.s.issue);
    const status = await command('/agent status');
    const stop = await command('/agent stop');

    expect(second.replies[0]?.body).to.include('Joined the running agent run');
    expect(onIssue.replies).to.have.length(0);
    expect(w.triggerPipelines().map((p) => p.name)).to.deep.equal([
      `mr-agent !${w.s.mergeRequest.iid}`,
      `mr-agent #${w.s.issue.iid}`,
    ]);
    expect(status.replies[0]?.body).to.include(`#${pipeline!.id}`);
    expect(stop.replies[0]?.body).to.include(`#${pipeline!.id}`).and.include('Cancelled');
    expect(w.standIn.model.pipelines.find((p) => p.id === pipeline!.id)?.status).to.equal(
      'canceled',
    );
  });

  it('#21 auto: a project without the header gets variables; GitLab keeps one failed pipeline, and the next command goes straight to variables', async () => {
    await start('auto', { header: false });

    await command('/agent fix it');
    w.standIn.model.setPipelineStatus(running()[0]!.id, 'success');
    await command('/agent retry');

    const [refused, ...started] = w.triggerPipelines();
    expect(refused!.status).to.equal('failed');
    expect(started.map((p) => p.variables.MR_AGENT_COMMAND)).to.deep.equal(['run', 'retry']);
    expect(started.every((p) => Object.keys(p.inputs).length === 0)).to.equal(true);
  });

  it('#21 auto: no header and variables forbidden: the reply names the setting and the inputs header, not the trigger token', async () => {
    await start('auto', { header: false });
    forbidVariables();

    const { replies } = await command('/agent fix it');

    expect(running()).to.have.length(0);
    const body = replies[0]!.body;
    expect(body).to.include('Insufficient permissions to set pipeline variables');
    expect(body).to.include(SETTING);
    expect(body).to.include('Requests as pipeline inputs');
    expect(body).not.to.include('trigger token is valid');
  });

  it('#21 variables: GitLab refusing the variables gets a reply that names the setting and the inputs alternative', async () => {
    await start('variables', { header: true });
    forbidVariables();

    const { replies } = await command('/agent fix it');

    expect(w.triggerPipelines()).to.have.length(0);
    expect(replies[0]!.body).to.include(SETTING).and.include('trigger.pass_as: inputs');
  });

  for (const passAs of ['inputs', 'auto'] as const) {
    it(`#21 ${passAs}: GitLab refusing an inputs-only trigger as "pipeline variables" (its TRIGGER_PAYLOAD, GitLab issue 557381) gets a reply naming that cause, the setting and the fix`, async () => {
      await start(passAs, { header: true });
      forbidVariables();
      w.standIn.model.triggerPayloadCountsAsVariable = true;

      const { replies } = await command('/agent fix it');

      expect(w.triggerPipelines()).to.have.length(0);
      const body = replies[0]!.body;
      expect(body).to.include('Insufficient permissions to set pipeline variables');
      expect(body).to.include('sent as pipeline inputs only');
      expect(body).to.include('TRIGGER_PAYLOAD');
      expect(body).to.include('557381');
      expect(body).to.include(SETTING);
      expect(body).not.to.include('trigger token is valid');
      expect(body).not.to.include('declares no `mr_agent_*` pipeline inputs');
    });
  }

  it('#21 inputs: a project without the header gets a reply that says to add it', async () => {
    await start('inputs', { header: false });

    const { replies } = await command('/agent fix it');

    expect(running()).to.have.length(0);
    expect(replies[0]!.body)
      .to.include('does not declare the mr-agent pipeline inputs')
      .and.include('Requests as pipeline inputs');
  });

  describe("the stand-in answers as GitLab's trigger API does", () => {
    async function post(fields: Record<string, string>) {
      const form = new FormData();
      for (const [k, v] of Object.entries(fields)) form.append(k, v);
      const url = `${w.standIn.url}/api/v4/projects/${w.s.project.id}/trigger/pipeline`;
      const response = await fetch(url, { method: 'POST', body: form });
      return { status: response.status, body: (await response.json()) as unknown };
    }

    it('400 for pipeline variables above the minimum role; 422 for inputs the file does not declare', async () => {
      await start('auto', { header: false });
      forbidVariables();
      const base = { token: w.triggerToken, ref: 'main' };

      const variables = await post({ ...base, 'variables[MR_AGENT_TASK]': 'x' });
      const inputs = await post({ ...base, 'inputs[mr_agent_task]': 'x' });
      await w.standIn.model.commit(w.s.project, 'main', { '.gitlab-ci.yml': documentedHeader() });
      const unknown = await post({ ...base, 'inputs[colour]': 'red' });
      const declared = await post({ ...base, 'inputs[mr_agent_task]': 'x' });

      expect(variables).to.deep.equal({
        status: 400,
        body: { message: { base: ['Insufficient permissions to set pipeline variables'] } },
      });
      expect(inputs).to.deep.equal({
        status: 422,
        body: {
          message: {
            base: [
              'Given inputs not defined in the `spec` section of the included configuration file',
            ],
          },
        },
      });
      expect(unknown).to.deep.equal({
        status: 422,
        body: { message: { base: ['unknown input arguments: colour'] } },
      });
      expect(declared.status).to.equal(201);
      expect(declared.body).to.include({ source: 'trigger', name: null });
    });
  });
});
