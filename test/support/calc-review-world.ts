import { Gitlab } from '@gitbeaker/rest';
import { commitFiles } from '../../src/testkit/gitlab-server/git.ts';
import type { NoteRec } from '../../src/testkit/gitlab-server/records.ts';
import type { ReviewFinding } from '../../src/phases/review/inline/findings.ts';
import { JobWorld } from '../ci/job-world.ts';
import { action, assessment, planWith } from './plans.ts';
import { BUGGY_CALC, openDiffThread } from './review-fixture.ts';

/** `src/calc.js` with add() fixed. */
export const FIXED_ADD = BUGGY_CALC.replace('  return a - b;', '  return a + b;');

/** The one-action plan of the scripted runs: fix add(). */
export const FIX_ADD_PLANNING = {
  purpose: 'planning',
  json: planWith([action('task_1', 'Fix add()')], ['add() adds']),
};

/** The work after that plan: write the fixed `src/calc.js`, done, criteria met. */
export const FIX_ADD_WORK = [
  {
    purpose: 'execution',
    tool_calls: [{ name: 'write_file', arguments: { path: 'src/calc.js', content: FIXED_ADD } }],
  },
  { purpose: 'execution', content: 'DONE: add() returns a + b' },
  { purpose: 'completion', json: assessment(true) },
];

/** The review finding on add(), with the suggestion that fixes it. */
export const ADD_SUBTRACTS: ReviewFinding = {
  file: 'src/calc.js',
  line: 2,
  severity: 'critical',
  message: 'add subtracts.',
  suggestion: '  return a + b;',
};

/** The scripted model's merge request review: it fails, with these findings. */
export const failedReview = (findings: ReviewFinding[]) => ({
  purpose: 'review.merge_request',
  content: JSON.stringify({ result: 'FAIL', feedback: 'see the threads', findings }),
});

/** The job variables of a run on the calculator: its test command checks `src/calc.js`. */
export const CALC_RUN_VARIABLES = { MR_AGENT_TEST_COMMAND: 'test -f src/calc.js' };

/**
 * A job world whose merge request's source branch holds the buggy
 * calculator (`src/calc.js`: add() subtracts, mul() adds), for review and
 * review-thread jobs.
 */
export async function startCalcReviewWorld(): Promise<JobWorld> {
  const world = await JobWorld.start();
  await commitFiles(world.s.project.repoDir, world.s.mergeRequest.sourceBranch, {
    'src/calc.js': BUGGY_CALC,
  });
  return world;
}

/**
 * What people do in the calculator's diff threads, through `@gitbeaker/rest`
 * against the stand-in of the world `current()` returns (read at each call,
 * as a test's world is made anew before each test).
 */
export function calcReviewThreads(current: () => JobWorld) {
  const as = (token: string) => new Gitlab({ host: current().standIn.url, token });
  const developer = () => as(current().s.developerToken.value);
  const on = () => ({ project: current().s.project.id, iid: current().s.mergeRequest.iid });
  return {
    as,
    developer,
    /** The bot's notes in a thread. */
    botNotesIn: (discussionId: string): NoteRec[] =>
      current().standIn.model.notes.filter(
        (n) => n.discussionId === discussionId && n.authorId === current().s.bot.id,
      ),
    /** A thread a person (the developer by default) opens on a line of `src/calc.js` in the latest diff version. */
    openThread: (
      line: number,
      body: string,
      token = current().s.developerToken.value,
    ): Promise<string> => openDiffThread(as(token), on(), { path: 'src/calc.js', line }, body),
    /** Replies in a thread as the developer; the note as the stand-in keeps it. */
    async replyAsDeveloper(discussionId: string, body: string): Promise<NoteRec> {
      const { project, iid } = on();
      const note = await developer().MergeRequestDiscussions.addNote(
        project,
        iid,
        discussionId,
        body,
      );
      return current().standIn.model.notes.find((n) => n.id === note.id)!;
    },
    /** The Comments event GitLab sends for the note, as the job's TRIGGER_PAYLOAD, with the calculator's run variables. */
    payloadOf: (note: NoteRec, extra: Record<string, string> = {}) => ({
      TRIGGER_PAYLOAD: JSON.stringify(
        current().standIn.hooks.notePayload(note, current().s.project),
      ),
      ...CALC_RUN_VARIABLES,
      ...extra,
    }),
  };
}
