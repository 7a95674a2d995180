import { expect } from 'chai';
import { t } from '../../src/messages/catalog.ts';
import { parseMarker } from '../../src/report/marker.ts';
import type { JobRun, JobWorld } from './job-world.ts';
import {
  CALC_RUN_VARIABLES as RUN_VARIABLES,
  FIX_ADD_PLANNING as planning,
  FIX_ADD_WORK as fixAdd,
  calcReviewThreads,
  startCalcReviewWorld,
} from '../support/calc-review-world.ts';

/**
 * The notes' language (`notes.language: auto`) is that of the people's own
 * words the run answers — the instruction, else the review threads it
 * addresses, else the merge request — never that of the task title
 * mr-agent writes for itself ("Address the review thread on …", "Work on
 * !1"). Whole CI jobs over real HTTP: the GitLab stand-in, the scripted model.
 */
/** The texts that tell a note's language (the run details fold, a thread's answer). */
const RUN_DETAILS = { en: t('en', 'details.summary'), ja: t('ja', 'details.summary') };
const ADDRESSED = { en: 'resolving the thread', ja: 'スレッドを解決済みにします' };

describe('ci: the notes follow the language people wrote in (stand-in + scripted model over HTTP)', function () {
  this.timeout(120_000);
  let world: JobWorld;
  beforeEach(async () => {
    world = await startCalcReviewWorld();
  });
  afterEach(() => world.close());

  const { botNotesIn, openThread, replyAsDeveloper, payloadOf } = calcReviewThreads(() => world);

  const progress = () => world.progressNotes().at(-1)!.body;

  /** The run's notes in one language: the progress note, the summary, and each thread's answer. */
  function expectNotesIn(language: 'en' | 'ja', job: JobRun, threads: readonly string[]): void {
    expect(job.code, job.stderr).to.equal(0);
    const other = language === 'en' ? 'ja' : 'en';
    expect(progress()).to.contain(RUN_DETAILS[language]).and.not.contain(RUN_DETAILS[other]);
    const summary = world.standIn.model.notes.find(
      (n) => n.authorId === world.s.bot.id && parseMarker(n.body)?.kind === 'summary',
    );
    expect(summary, 'summary note').to.not.equal(undefined);
    expect(summary!.body).to.not.contain(RUN_DETAILS[other]);
    for (const thread of threads) {
      const answer = botNotesIn(thread).at(-1)!;
      expect(answer.body, answer.body).to.contain(ADDRESSED[language]);
    }
    // the model is asked for its people-facing text in that language too (English needs no instruction)
    const sent = JSON.stringify(job.llm.requests[0]!.messages);
    if (language === 'ja') expect(sent).to.contain('in Japanese');
    else expect(sent).not.to.contain('Language of your answers');
  }

  it('O11 `/agent` alone in a diff thread written in Japanese: Japanese progress note, summary and thread answer', async () => {
    const thread = await openThread(2, 'add() が引き算になっています。足し算にしてください。');
    const ask = await replyAsDeveloper(thread, '/agent');
    const job = await world.job({ replies: [planning, ...fixAdd], variables: payloadOf(ask) });
    expectNotesIn('ja', job, [thread]);
  });

  it('O11 `/agent address-reviews` on threads written in Japanese: Japanese notes and answers', async () => {
    const onAdd = await openThread(2, 'add() は足し算にしてください。');
    const onMul = await openThread(6, 'mul() は掛け算のはずです。');
    const job = await world.job({
      replies: [
        planning,
        ...fixAdd,
        {
          purpose: 'review.threads',
          json: {
            threads: [
              { thread: 'T1', addressed: true, note: 'add() は a + b を返します。' },
              { thread: 'T2', addressed: true, note: 'mul() も直しました。' },
            ],
          },
        },
      ],
      variables: { ...world.bridgeVariables('address-reviews', ''), ...RUN_VARIABLES },
    });
    expectNotesIn('ja', job, [onAdd, onMul]);
  });

  it('O11 a Japanese instruction in a thread written in English: Japanese notes', async () => {
    const thread = await openThread(2, 'add() must add.');
    const ask = await replyAsDeveloper(thread, '/agent 足し算に直してください');
    const job = await world.job({ replies: [planning, ...fixAdd], variables: payloadOf(ask) });
    expectNotesIn('ja', job, [thread]);
  });

  it('O11 an English instruction in a thread written in Japanese: English notes', async () => {
    const thread = await openThread(2, 'add() が引き算になっています。');
    const ask = await replyAsDeveloper(thread, '/agent please make add() add');
    const job = await world.job({ replies: [planning, ...fixAdd], variables: payloadOf(ask) });
    expectNotesIn('en', job, [thread]);
  });

  it('O11 `notes.language: en` keeps the notes English whatever the thread says', async () => {
    const thread = await openThread(2, 'add() が引き算になっています。足し算にしてください。');
    const ask = await replyAsDeveloper(thread, '/agent');
    const job = await world.job({
      replies: [planning, ...fixAdd],
      variables: payloadOf(ask, { MR_AGENT_LANGUAGE: 'en' }),
    });
    expectNotesIn('en', job, [thread]);
  });

  it('O11 `/agent` alone on a merge request titled and described in Japanese: Japanese notes', async () => {
    world.s.mergeRequest.title = '足し算を直す';
    world.s.mergeRequest.description = 'add() が引き算になっているので直してください。';
    const job = await world.job({
      replies: [planning, ...fixAdd],
      variables: { ...world.bridgeVariables('run', ''), ...RUN_VARIABLES },
    });
    expectNotesIn('ja', job, []);
    // the title mr-agent wrote for the run stays what it was
    expect(progress()).to.contain('Work on !');
  });

  it('O11 `/agent` alone on an issue written in Japanese: Japanese notes, the issue read once', async () => {
    const issue = world.s.issue;
    issue.title = 'farewell() を追加する';
    issue.description = 'さよならを言う関数がほしいです。';
    const note = world.standIn.model.addNote({
      on: issue,
      body: '/agent',
      authorId: world.s.developer.id,
    });
    world.standIn.requests.clear();
    const job = await world.job({
      ref: world.s.project.defaultBranch,
      replies: [planning, ...fixAdd],
      variables: {
        MR_AGENT_SOURCE: 'note',
        MR_AGENT_COMMAND: 'run',
        MR_AGENT_TASK: '',
        MR_AGENT_NOTE_ID: String(note.id),
        MR_AGENT_ISSUE_IID: String(issue.iid),
        MR_AGENT_TRIGGERED_BY: String(world.s.developer.id),
        ...RUN_VARIABLES,
      },
    });
    expect(job.code, job.stderr).to.equal(0);
    expect(progress()).to.contain(RUN_DETAILS.ja).and.not.contain(RUN_DETAILS.en);
    expect(progress()).to.contain('Work on #');
    const reads = world.standIn.requests.byRoute();
    expect(
      reads['GET /projects/:id/issues/:issue_iid'] ?? reads['GET /projects/:id/issues/:iid'],
    ).to.equal(1);
  });

  it('O11/B2 the run job of the two-step flow writes in the language the plan job decided, though the merge request changed since', async () => {
    world.s.mergeRequest.title = '足し算を直す';
    world.s.mergeRequest.description = 'add() が引き算になっているので直してください。';
    const plan = await world.job({
      step: 'plan',
      replies: [planning],
      variables: { ...world.bridgeVariables('run', ''), ...RUN_VARIABLES },
    });
    expect(plan.code, plan.stderr).to.equal(0);
    expect(progress()).to.contain(RUN_DETAILS.ja);
    world.s.mergeRequest.title = 'Fix add()';
    world.s.mergeRequest.description = 'add() subtracts.';
    const run = await world.job({
      step: 'run',
      replies: fixAdd,
      variables: { CI_PIPELINE_SOURCE: 'parent_pipeline', ...RUN_VARIABLES },
      artifactsFrom: plan,
    });
    expect(run.code, run.stderr).to.equal(0);
    expect(world.progressNotes()).to.have.length(1);
    expect(progress()).to.contain(RUN_DETAILS.ja).and.not.contain(RUN_DETAILS.en);
  });

  it('O11/O4 a run job that fails before taking over the note of a plan job that answered a Japanese thread ends it, and replies, in Japanese', async () => {
    const thread = await openThread(2, 'add() が引き算になっています。足し算にしてください。');
    const ask = await replyAsDeveloper(thread, '/agent');
    const plan = await world.job({ step: 'plan', replies: [planning], variables: payloadOf(ask) });
    expect(plan.code, plan.stderr).to.equal(0);
    world.standIn.faults.add({
      method: 'GET',
      path: '/personal_access_tokens/self',
      status: 429,
      retryAfter: 3600,
    });
    const run = await world.job({
      step: 'run',
      replies: [],
      variables: { CI_PIPELINE_SOURCE: 'parent_pipeline' },
      artifactsFrom: plan,
    });
    world.standIn.faults.clear();

    expect(run.code).to.equal(1);
    expect(parseMarker(progress())?.state).to.equal('failed');
    expect(progress()).to.contain(t('ja', 'state.failed')).and.not.contain(t('en', 'state.failed'));
    const failure = world.standIn.model.notes.filter(
      (n) =>
        n.authorId === world.s.bot.id && n.body.includes('mr-agent は実行を開始できませんでした'),
    );
    expect(failure).to.have.length(1);
  });

  it('O11 `/agent continue` after a bare `/agent` on a Japanese merge request: its notice about the checkpoint is Japanese', async () => {
    world.s.mergeRequest.title = '足し算を直す';
    world.s.mergeRequest.description = 'add() が引き算になっているので直してください。';
    const first = await world.job({
      replies: [planning, ...fixAdd],
      variables: { ...world.bridgeVariables('run', ''), ...RUN_VARIABLES },
    });
    expect(first.code, first.stderr).to.equal(0);
    const job = await world.job({
      replies: [planning, ...fixAdd],
      variables: { ...world.bridgeVariables('continue', ''), ...RUN_VARIABLES },
    });
    expect(job.code, job.stderr).to.equal(0);
    expect(progress()).to.contain(t('ja', 'resume.none')).and.contain(RUN_DETAILS.ja);
  });

  it('O11 `/agent retry` of a run that answered a Japanese thread writes in Japanese though the merge request is English', async () => {
    const thread = await openThread(2, 'add() が引き算になっています。足し算にしてください。');
    const ask = await replyAsDeveloper(thread, '/agent');
    const first = await world.job({ replies: [planning, ...fixAdd], variables: payloadOf(ask) });
    expectNotesIn('ja', first, [thread]);
    const job = await world.job({
      replies: [planning, ...fixAdd],
      variables: { ...world.bridgeVariables('retry', ''), ...RUN_VARIABLES },
    });
    expect(job.code, job.stderr).to.equal(0);
    expect(progress()).to.contain(RUN_DETAILS.ja).and.not.contain(RUN_DETAILS.en);
  });
});
