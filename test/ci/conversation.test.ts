import { expect } from 'chai';
import type { ScriptedOpenAiServer } from '../../src/testkit/openai-server/server.ts';
import { action, assessment, planWith } from '../support/plans.ts';
import { FAREWELL, JobWorld } from './job-world.ts';

const DOCS = '# farewell\n\n`farewell(name)` says goodbye.\n';
const DEV_ASK = 'docs/farewell.md にも説明を追加してください';
const GUEST_TEXT = 'guest-says-delete-everything-4471';
const INTERNAL_TEXT = 'internal-note-text-9912';

const planning = {
  purpose: 'planning',
  json: planWith([action('task_1', 'Add farewell()')], ['farewell() exists']),
};

function revisionForDocs() {
  return {
    purpose: 'reflection',
    json: {
      phase: 'reflection',
      reflection: {
        action_evaluated: 'task_1',
        status: 'success',
        evaluation: 'farewell() exists; a comment asks for docs too.',
        alignment_with_plan: 'on track',
        issues_identified: [],
        plan_revision_needed: true,
      },
      plan_revision: {
        reason: 'A reviewer asked for docs/farewell.md',
        changes: [{ type: 'add_action', details: 'write docs/farewell.md' }],
        updated_action_plan: {
          execution_order: ['task_2'],
          actions: [action('task_2', 'Write docs/farewell.md')],
        },
      },
      comment: 'Adding docs/farewell.md as asked.',
      human_feedback: {
        replies: [{ comment_id: 0, reply: 'docs/farewell.md も更新します。' }],
        stop_before_delivery: false,
      },
    },
  };
}

/**
 * The plan and its one action, written slowly enough (1.5 s) for comments
 * made once execution starts to come while the run works.
 */
function farewellSlowly() {
  return [
    planning,
    {
      purpose: 'execution',
      delay_ms: 1_500,
      tool_calls: [
        { name: 'write_file', arguments: { path: 'src/farewell.js', content: FAREWELL } },
      ],
    },
    { purpose: 'execution', content: 'DONE: added farewell()' },
  ];
}

/** The checkpoint's plan revision for the docs a comment asked for, their writing, and the criteria met. */
function docsAsAsked() {
  return [
    revisionForDocs(),
    {
      purpose: 'execution',
      tool_calls: [{ name: 'write_file', arguments: { path: 'docs/farewell.md', content: DOCS } }],
    },
    { purpose: 'execution', content: 'DONE: wrote docs/farewell.md' },
    { purpose: 'completion', json: assessment(true) },
  ];
}

/** Resolves once the run asked the model for its first execution step. */
async function executionStarted(llm: ScriptedOpenAiServer): Promise<void> {
  while (!llm.requests.some((r) => r.purpose === 'execution'))
    await new Promise((r) => setTimeout(r, 20));
}

/**
 * Issue 35: a run hears the comments made on its merge request while it
 * works (whole `mr-agent ci` jobs over HTTP against the GitLab stand-in and
 * the scripted model).
 */
describe('a run as a conversation (issue 35)', function () {
  this.timeout(90_000);
  let world: JobWorld;

  beforeEach(async () => {
    world = await JobWorld.start();
  });
  afterEach(async () => {
    await world.close();
  });

  it("C1 a Developer's comment during execution reaches the model at the next checkpoint, is answered in its own thread in its language, and the result reflects it; a Guest's comment and an internal note never reach a prompt", async () => {
    const model = world.standIn.model;
    const said: { dev?: { id: number; discussionId: string }; guest?: { discussionId: string } } =
      {};
    const job = await world.job({
      replies: [...farewellSlowly(), ...docsAsAsked()],
      variables: world.bridgeVariables('run', 'add a farewell function'),
      whileRunning: async ({ llm }) => {
        await executionStarted(llm);
        const dev = model.addNote({
          on: world.s.mergeRequest,
          body: DEV_ASK,
          authorId: world.s.developer.id,
        });
        said.dev = { id: dev.id, discussionId: dev.discussionId };
        const guest = model.addNote({
          on: world.s.mergeRequest,
          body: GUEST_TEXT,
          authorId: world.s.guest.id,
        });
        said.guest = { discussionId: guest.discussionId };
        model.addNote({
          on: world.s.mergeRequest,
          body: INTERNAL_TEXT,
          authorId: world.s.maintainer.id,
          internal: true,
        });
      },
    });

    expect(job.code, job.stderr).to.equal(0);
    job.llm.assertAllUsed();
    const reflection = job.llm.requests.find((r) => r.purpose === 'reflection')!;
    const prompt = JSON.stringify(reflection.messages);
    expect(prompt).to.include(DEV_ASK).and.include('@dev');
    for (const request of job.llm.requests) {
      const text = JSON.stringify(request.messages);
      expect(text).not.to.include(GUEST_TEXT);
      expect(text).not.to.include(INTERNAL_TEXT);
    }
    const answers = model.notes.filter(
      (n) => n.discussionId === said.dev!.discussionId && n.id !== said.dev!.id,
    );
    expect(answers).to.have.length(1);
    expect(answers[0]!.authorId).to.equal(world.s.bot.id);
    expect(answers[0]!.body).to.include('承知しました — docs/farewell.md も更新します。');
    expect(model.notes.filter((n) => n.discussionId === said.guest!.discussionId)).to.have.length(
      1,
    );
    const head = world.branchHead();
    expect(world.git(world.s.project.repoDir, 'show', `${head}:docs/farewell.md`)).to.equal(
      DOCS.trimEnd(),
    );
    expect(model.pipelines.filter((p) => p.source === 'trigger')).to.have.length(1);
  });

  it('O11 with `notes.language: en` a Japanese comment during the run is answered in English', async () => {
    const model = world.standIn.model;
    let dev: { id: number; discussionId: string } | undefined;
    const job = await world.job({
      replies: [...farewellSlowly(), ...docsAsAsked()],
      variables: {
        ...world.bridgeVariables('run', 'add a farewell function'),
        MR_AGENT_LANGUAGE: 'en',
      },
      whileRunning: async ({ llm }) => {
        await executionStarted(llm);
        const note = model.addNote({
          on: world.s.mergeRequest,
          body: DEV_ASK,
          authorId: world.s.developer.id,
        });
        dev = { id: note.id, discussionId: note.discussionId };
      },
    });

    expect(job.code, job.stderr).to.equal(0);
    const answers = model.notes.filter(
      (n) => n.discussionId === dev!.discussionId && n.id !== dev!.id,
    );
    expect(answers).to.have.length(1);
    expect(answers[0]!.body).to.include('Noted — docs/farewell.md も更新します。');
  });

  it('C2 "stop before you push" during execution ends the run without pushing, the change kept as a patch note, and says so in the thread', async () => {
    const model = world.standIn.model;
    const before = world.branchHead();
    let asked: { id: number; discussionId: string } | undefined;
    const job = await world.job({
      replies: [
        ...farewellSlowly(),
        {
          purpose: 'reflection',
          json: {
            phase: 'reflection',
            reflection: {
              action_evaluated: 'task_1',
              status: 'success',
              evaluation: 'done; asked not to push',
              alignment_with_plan: 'on track',
              issues_identified: [],
              plan_revision_needed: false,
            },
            human_feedback: { replies: [], stop_before_delivery: true },
          },
        },
        { purpose: 'completion', json: assessment(true) },
      ],
      variables: world.bridgeVariables('run', 'add a farewell function'),
      whileRunning: async ({ llm }) => {
        await executionStarted(llm);
        const note = model.addNote({
          on: world.s.mergeRequest,
          body: 'Please stop before you push.',
          authorId: world.s.developer.id,
        });
        asked = { id: note.id, discussionId: note.discussionId };
      },
    });

    // kept as a patch, not pushed where it belongs: exit 3, as for any patch note
    expect(job.code, job.stderr).to.equal(3);
    job.llm.assertAllUsed();
    expect(world.branchHead()).to.equal(before);
    const [reply] = model.notes.filter(
      (n) => n.discussionId === asked!.discussionId && n.id !== asked!.id,
    );
    expect(reply?.body).to.include('I will stop before pushing');
    const patch = model.notes.find((n) => n.body.includes('mr-agent:patch'));
    expect(patch?.body).to.include('@dev asked the run to stop before pushing');
  });
});
