import { expect } from 'chai';
import { parseMarker } from '../../src/report/marker.ts';
import type { NoteRec } from '../../src/testkit/gitlab-server/records.ts';
import { JobWorld } from '../ci/job-world.ts';
import { renderGitLab, visibleText } from '../support/gitlab-markdown.ts';
import { postPausedRun } from '../support/paused-run.ts';
import { action, assessment, planWith, reflection } from '../support/plans.ts';
import { templateLeaks, visibleInternalIds } from '../support/template-words.ts';
import { startBridgeWorld, type BridgeWorld } from '../trigger/bridge-world.ts';
import { deliver } from '../trigger/http-client.ts';

const REQUEST = 'farewell 関数を追加してください';
const FAREWELL = 'export function farewell(name) {\n  return `Bye, ${name}!`;\n}\n';

/** A plan whose people-facing text is Japanese, as a model asked for Japanese answers writes it. */
const plan = {
  ...planWith([action('task_1', 'src/farewell.js に farewell() を書く')], ['farewell() がある']),
  comment: '計画ができました。',
};
const write = {
  purpose: 'execution',
  tool_calls: [{ name: 'write_file', arguments: { path: 'src/farewell.js', content: FAREWELL } }],
};
const done = { purpose: 'execution', content: 'DONE: farewell() を追加しました' };
const complete = { purpose: 'completion', json: assessment(true) };

/** Names of things and words of the request, not template words. */
const NAMES = ['farewell', 'src', 'js', 'GitLab', 'mr', 'agent'];

/** Words the scripted model wrote: its text may hold English (names in the code); templates may not. */
function modelWords(replies: readonly unknown[]): string[] {
  return JSON.stringify(replies).match(/[A-Za-z][A-Za-z'’]+/g) ?? [];
}

/**
 * Every note the agent posted, as GitLab shows it: not one English word of
 * the message catalog (test/support/template-words.ts) outside code and
 * links, and no internal id outside the folds.
 */
function expectJapanese(notes: readonly NoteRec[], allowed: readonly string[]): void {
  expect(notes.length).to.be.greaterThan(0);
  for (const note of notes) {
    const kind = parseMarker(note.body)?.kind ?? 'note';
    expect(
      templateLeaks(note.body, new Set(allowed)),
      `${kind}: English template words\n${note.body}`,
    ).to.deep.equal([]);
    expect(visibleInternalIds(note.body), `${kind}: internal ids\n${note.body}`).to.deep.equal([]);
  }
}

/**
 * Issue 32 "every path in the requester's language": a Japanese request on
 * the paths the golden notes do not cover — a replan, the review's feedback,
 * a fork's merge request, `/agent help` and `/agent status` — over HTTP
 * against the GitLab stand-in, the scripted model and the webhook bridge.
 */
describe('issue 32: every path of a Japanese request has Japanese notes (stand-ins end to end)', function () {
  this.timeout(90_000);

  describe('the job (mr-agent ci)', () => {
    let world: JobWorld;
    beforeEach(async () => {
      world = await JobWorld.start();
    });
    afterEach(async () => {
      await world.close();
    });

    const botNotes = () => world.standIn.model.notes.filter((n) => n.authorId === world.s.bot.id);

    it('F3 #23 a replan (a failed action retried on the model’s decision): the retry and its reason are Japanese, in the one progress note', async () => {
      const decide = (point: string, fields: Record<string, unknown> = {}) => ({
        purpose: `replan.${point}`,
        json: {
          replan_decision: {
            replan_needed: false,
            confidence: 0.9,
            reasoning: '問題ありません。',
            ...fields,
          },
        },
      });
      const replies = [
        { purpose: 'planning', json: plan },
        decide('goal_understanding'),
        decide('task_decomposition'),
        decide('action_sequence'),
        { purpose: 'execution', content: 'FAILED: ディスクが使用中でした' },
        decide('execution', {
          replan_needed: true,
          replan_type: 'retry',
          replan_level: 1,
          reasoning: '一時的な失敗なので、同じ手順をもう一度試します。',
        }),
        write,
        done,
        decide('execution'),
        complete,
        decide('final_evaluation'),
      ];
      const job = await world.job({
        replies,
        variables: { ...world.bridgeVariables('run', REQUEST), REPLANNING_ENABLED: 'true' },
      });
      expect(job.code, job.stderr).to.equal(0);
      job.llm.assertAllUsed();
      const progress = world.progressNotes();
      expect(progress).to.have.length(1);
      const body = progress[0]!.body;
      expect(parseMarker(body)).to.include({ state: 'complete' });
      // the step carries its retry, in Japanese
      expect(visibleText(renderGitLab(body)).join('\n'), body).to.match(
        /farewell\(\) を書く — 1 回失敗した後に完了/,
      );
      expectJapanese(botNotes(), [...NAMES, ...modelWords(replies)]);
    });

    it("G1 #23 the execution review's feedback: the step that addresses it is said in Japanese (from the catalog), not in English", async () => {
      const review = (result: string, feedback: string) => ({
        purpose: 'review.execution',
        content: JSON.stringify({ result, feedback }),
      });
      const replies = [
        { purpose: 'planning', json: plan },
        { purpose: 'review.planning', content: JSON.stringify({ result: 'PASS', feedback: '' }) },
        write,
        done,
        review('FAIL', '名前が空のときの扱いがありません。\n空文字列なら例外にしてください。'),
        // the reflection proposes no change of its own: the review's feedback becomes the next step
        { purpose: 'reflection', json: reflection('partial') },
        write,
        done,
        review('PASS', ''),
        complete,
      ];
      const job = await world.job({
        replies,
        variables: { ...world.bridgeVariables('run', REQUEST), MR_AGENT_REVIEW_ENABLED: 'true' },
      });
      expect(job.code, job.stderr).to.equal(0);
      job.llm.assertAllUsed();
      const body = world.progressNotes().at(-1)!.body;
      expect(body).to.contain('実行レビューの指摘に対応する: 名前が空のときの扱いがありません。');
      expect(body).to.not.contain('Address the execution review');
      expectJapanese(botNotes(), [...NAMES, ...modelWords(replies)]);
    });

    it('issue 19 §1 #23 a fork’s merge request: the patch note and the progress note say "not pushed by policy" once, in Japanese', async () => {
      const model = world.standIn.model;
      const outsider = model.addUser({ username: 'outsider', name: 'Otto Outsider' });
      const fork = await model.addProject({ path: 'outsider/app', forkOf: world.s.project });
      model.addMember(fork, outsider.id, 50);
      await model.commit(fork, 'fix', { 'NOTES.md': 'fork\n' }, { from: 'main', message: 'x' });
      const mr = model.createMergeRequest({
        project: world.s.project,
        sourceProject: fork,
        sourceBranch: 'fix',
        title: 'Fork fix',
        authorId: outsider.id,
        allowCollaboration: true,
      });
      await model.updateMergeRequestRef(mr);
      const note = model.addNote({
        on: mr,
        body: `/agent ${REQUEST}`,
        authorId: world.s.developer.id,
      });
      const replies = [{ purpose: 'planning', json: plan }, write, done, complete];
      const job = await world.job({
        replies,
        ref: 'main',
        variables: {
          MR_AGENT_SOURCE: 'note',
          MR_AGENT_COMMAND: 'run',
          MR_AGENT_TASK: REQUEST,
          MR_AGENT_NOTE_ID: String(note.id),
          MR_AGENT_MR_IID: String(mr.iid),
          MR_AGENT_TRIGGERED_BY: String(world.s.developer.id),
        },
      });
      expect(job.code, job.stderr).to.equal(3);
      const notes = model
        .notesOf('MergeRequest', mr.id)
        .filter((n) => n.authorId === world.s.bot.id);
      const patch = notes.find((n) => parseMarker(n.body)?.kind === 'patch')!.body;
      expect(patch).to.contain('+export function farewell(name) {');
      expect(patch).to.contain('trigger.forks: run');
      expect(patch).to.contain('ポリシーにより `fix` にはプッシュしていません');
      expect(patch.match(/フォークのコードは実行していません/g), 'one fork notice').to.have.length(
        1,
      );
      expectJapanese(notes, [...NAMES, ...modelWords(replies), 'fix', 'diff', 'patch']);
    });
  });

  describe('the bridge (mr-agent serve)', () => {
    let w: BridgeWorld;
    afterEach(() => w.close());

    async function replyTo(body: string): Promise<NoteRec> {
      const said = w.comment(w.s.mergeRequest, w.s.developer, body);
      expect((await deliver(w.bridges[0]!.url, said.hook)).status).to.equal(202);
      await w.idle();
      const replies = w.standIn.model.notes.filter(
        (n) => n.discussionId === said.note.discussionId && n.id !== said.note.id,
      );
      expect(replies).to.have.length(1);
      return replies[0]!;
    }

    it('A6 #23 `/agent help` with notes.language ja: the whole help reply is Japanese, each command once', async () => {
      w = await startBridgeWorld({ sets: ['notes.language=ja'] });
      const help = await replyTo('/agent help');
      expect(help.body).to.contain('`/agent stop`');
      expectJapanese([help], NAMES);
    });

    it('A6 #23 `/agent status` on a Japanese run: the reply follows the run’s language', async () => {
      w = await startBridgeWorld();
      const url = `${w.standIn.url}/${w.s.project.path}/-/merge_requests/${w.s.mergeRequest.iid}`;
      postPausedRun({
        standIn: w.standIn,
        on: w.s.mergeRequest,
        botId: w.s.bot.id,
        mrUrl: url,
        pipelineId: 900,
        jobId: 901,
        language: 'ja',
      });
      const status = await replyTo('/agent status');
      expect(parseMarker(status.body)).to.include({ kind: 'reply', state: 'awaiting_answer' });
      // the progress note's own item texts are the run's (English in this fixture): only the reply's words count
      expectJapanese(
        [status],
        [...NAMES, 'Read', 'greet', 'Trim', 'the', 'name', 'Test', 'it', 'Fix', 'greeting'],
      );
    });
  });
});
