/**
 * Every note mr-agent posts, in every state, in every language: the golden
 * files under test/golden/notes/<lang>/, the GitLab Markdown checks and the
 * screenshots in docs/notes/ all come from here. The note kinds are those of
 * the registry (src/report/notes/registry.ts), in its order.
 */
import { renderThreadAnswer } from '../../src/report/notes/thread-answer-note.ts';
import { Redactor } from '../../src/log/redact.ts';
import type { Language } from '../../src/messages/language.ts';
import type { ProgressState } from '../../src/core/progress/model.ts';
import { renderClarificationNote } from '../../src/report/notes/clarification-note.ts';
import type { NoteContext } from '../../src/report/notes/context.ts';
import { renderEnvironmentFailureNote } from '../../src/report/notes/environment-failure-note.ts';
import {
  renderHumanInterventionNote,
  type HumanInterventionResult,
} from '../../src/report/notes/human-intervention-note.ts';
import { renderPatchNote } from '../../src/report/notes/patch-note.ts';
import { renderHelpReply, renderStatusReply } from '../../src/report/notes/reply-note.ts';
import { helpEntries } from '../../src/commands/replies.ts';
import { renderSummaryNote } from '../../src/report/notes/summary-note.ts';
import {
  renderFindingThread,
  renderFixedReply,
  renderUnplacedFindings,
} from '../../src/report/notes/review-note.ts';
import { NOTES, type NoteName } from '../../src/report/notes/registry.ts';
import { renderProgressNote } from '../../src/report/progress/render.ts';
import {
  awaitingAnswer,
  budgetReached,
  cancelledDuringExecution,
  completed,
  executing,
  failedDuringExecution,
  interrupted,
  longRun,
  MR,
  needsHuman,
  pausedDuringExecution,
  revisedTwice,
  sec,
  T0,
  TASK_NOTE,
} from './progress/scenario.ts';
import { initialProgress } from '../../src/core/progress/updates.ts';
import { JA_MODEL_TEXT, translated } from './gallery-ja.ts';

/** The model-written parts in the note's language (the templates translate themselves). */
function inLanguage<T>(value: T, language: Language): T {
  return language === 'ja' ? translated(value, JA_MODEL_TEXT) : value;
}

const JOB_URL = 'https://gitlab.example.com/group/app/-/jobs/1234';
const PROGRESS_NOTE = `${MR}#note_70`;

function firstVersion(): ProgressState {
  return initialProgress({
    taskId: 'mr-42-7',
    title: 'Add retry logic to the HTTP client',
    startedAt: T0,
    jobId: '1234',
    pipelineId: '567',
    jobUrl: JOB_URL,
  });
}

const PROGRESS: ReadonlyArray<readonly [string, () => ProgressState]> = [
  ['progress-1-first-version', firstVersion],
  ['progress-2-running', executing],
  ['progress-3-running-revised', revisedTwice],
  ['progress-4-complete', completed],
  ['progress-5-failed', failedDuringExecution],
  ['progress-6-cancelled', cancelledDuringExecution],
  ['progress-7-waiting-for-answer', awaitingAnswer],
  ['progress-8-needs-human', needsHuman],
  ['progress-9-interrupted', interrupted],
  ['progress-10-paused', pausedDuringExecution],
  ['progress-11-budget-reached', budgetReached],
  ['progress-12-long-run', longRun],
];

const SUMMARIES: ReadonlyArray<readonly [string, () => ProgressState]> = [
  ['summary-complete', completed],
  ['summary-failed', failedDuringExecution],
  ['summary-cancelled', cancelledDuringExecution],
];

function context(language: Language): NoteContext {
  return {
    taskId: 'mr-42-7',
    jobId: '1234',
    pipelineId: '567',
    jobUrl: JOB_URL,
    title: 'Add retry logic to the HTTP client',
    requester: 'dana',
    language,
  };
}

const QUESTION = {
  questions: ['Should retries apply to POST requests?', 'What is the largest acceptable delay?'],
  context: 'Retrying non-idempotent requests can create duplicates.',
  assumptions: ['only GET, HEAD and PUT are retried.', 'the delay is capped at 30 seconds.'],
  minAccessLabel: 'Developer',
  askedAt: sec(90),
};

const INTERVENTION: HumanInterventionResult = {
  phase: 'completion',
  status: 'requires_human_intervention',
  summary: {
    goal_achieved: false,
    tasks_completed: 3,
    tasks_failed: 1,
    revision_attempts: 2,
    reason: 'The plan revision limit was reached.',
    current_state: 'The client compiles, but tests/test_client.py still cannot import it.',
    recommendations: [
      'the circular import between http/client.py and http/session.py',
      'Run the tests with `python -m pytest` from the repository root',
    ],
  },
  comment: 'Automatic processing is not making progress.',
};

const DIFF = [
  'diff --git a/http/client.py b/http/client.py',
  '--- a/http/client.py',
  '+++ b/http/client.py',
  '@@ -1,3 +1,4 @@',
  ' import requests',
  '+from http.retry import with_backoff',
  ' ',
  ' def get(url):',
].join('\n');

type Specimens = (language: Language) => Array<[string, string]>;

/** The progress note in every state; the summary note at each end. */
const PROGRESS_SPECIMENS: Specimens = (language) =>
  PROGRESS.map(([name, build]) => [
    name,
    renderProgressNote(inLanguage({ ...build(), language }, language)),
  ]);

const SUMMARY_SPECIMENS: Specimens = (language) =>
  SUMMARIES.map(([name, build]) => [
    name,
    renderSummaryNote(inLanguage({ ...build(), language }, language), {
      progressNote: PROGRESS_NOTE,
      requester: 'dana',
    }),
  ]);

function redactor(): Redactor {
  const r = new Redactor();
  r.add('tok-1234567890');
  return r;
}

const MARKER = { job: '1234', pipeline: '567', task: 'mr-42-7' };

/**
 * Each registered note kind's examples, in the order of the registry. The
 * type makes a new note kind come with its examples: the gallery shows every
 * kind of `src/report/notes/registry.ts`.
 */
const SPECIMENS: Readonly<Record<NoteName, Specimens>> = {
  progress: PROGRESS_SPECIMENS,
  summary: SUMMARY_SPECIMENS,
  clarification: (language) => {
    const ctx = inLanguage(context(language), language);
    const question = inLanguage(QUESTION, language);
    return [
      [
        'clarification',
        renderClarificationNote({ ...question, waitMinutes: 30, autoAssume: true }, ctx),
      ],
      [
        'clarification-paused',
        renderClarificationNote({ ...question, waitMinutes: 0, autoAssume: false }, ctx),
      ],
      [
        'clarification-answered',
        renderClarificationNote(
          {
            ...question,
            waitMinutes: 30,
            autoAssume: true,
            settled: { state: 'answered', answeredBy: ['dana'] },
          },
          ctx,
        ),
      ],
    ];
  },
  'human-intervention': (language) => [
    [
      'human-intervention',
      renderHumanInterventionNote(
        inLanguage(INTERVENTION, language),
        inLanguage(context(language), language),
        { taskNoteUrl: TASK_NOTE },
      ),
    ],
  ],
  'environment-failure': (language) => [
    [
      'environment-failure',
      renderEnvironmentFailureNote({
        environment: 'python',
        command: 'python3 -m pip install -r requirements.txt',
        exitCode: 1,
        output:
          'Looking in indexes: https://tok-1234567890@pypi.example.com/simple\nERROR: No matching distribution found for reqeusts',
        classification: {
          class: 'fixable',
          kind: 'unknown-package',
          tool: 'pip',
          evidence: 'ERROR: No matching distribution found for reqeusts',
        },
        retries: { network: 2, 'server-error': 0, lock: 0 },
        regenerations: 3,
        maxRegenerations: 3,
        stopReason: { key: 'envStop.regenerations', params: { count: 3 } },
        marker: MARKER,
        redactor: redactor(),
        language,
      }),
    ],
  ],
  patch: (language) => [
    [
      'patch',
      renderPatchNote({
        marker: MARKER,
        branch: 'feature/retry',
        reason: 'the merge request comes from a fork',
        why: { kind: 'fork-policy' },
        requester: 'dana',
        diff: DIFF,
        filesChanged: 1,
        artifactPath: '.mr-agent/patch-mr-42-7.diff',
        redactor: redactor(),
        language,
      }),
    ],
  ],
  review: (language) => [
    [
      'review-thread',
      renderFindingThread({
        identity: '0123456789abcdef',
        severity: 'major',
        message: inLanguage(
          'The retry loop never gives up: bound it, as the request asks.',
          language,
        ),
        suggestion: {
          text: 'for attempt in range(3):\n    response = with_backoff(get, url)',
          linesAbove: 1,
        },
        redactor: redactor(),
        language,
      }),
    ],
    ['review-fixed', renderFixedReply({ sha: 'a1b2c3d4e5f6', redactor: redactor(), language })],
    [
      'review-unplaced',
      renderUnplacedFindings({
        findings: [
          {
            file: 'http/client.py',
            line: 40,
            severity: 'minor',
            message: inLanguage('Name the timeout.', language),
            reason: inLanguage('GitLab refused the position (400)', language),
          },
        ],
        redactor: redactor(),
        language,
      }),
    ],
  ],
  'thread-answer': (language) => [
    [
      'thread-addressed',
      renderThreadAnswer(
        {
          addressed: true,
          commit: 'a1b2c3d4e5f6a7b8',
          commitUrl: 'https://gitlab.example.com/acme/app/-/commit/a1b2c3d4e5f6a7b8',
        },
        { redactor: redactor(), language },
      ),
    ],
    [
      'thread-open',
      renderThreadAnswer(
        {
          addressed: false,
          why: { kind: 'not-in-change' },
          note: inLanguage('The retry bound needs a decision on the timeout first.', language),
        },
        {
          redactor: redactor(),
          language,
          progressNoteUrl: 'https://gitlab.example.com/acme/app/-/merge_requests/12#note_42',
        },
      ),
    ],
  ],
  replies: (language) => {
    const ctx = inLanguage(context(language), language);
    return [
      [
        'status-running',
        renderStatusReply(
          {
            state: 'running',
            phase: 'execution',
            progress: { done: 1, total: 3 },
            startedAt: T0,
            progressNoteUrl: PROGRESS_NOTE,
            jobUrl: JOB_URL,
          },
          ctx,
        ),
      ],
      [
        'status-waiting-for-answer',
        renderStatusReply(
          {
            state: 'awaiting_answer',
            phase: 'execution',
            progress: { done: 1, total: 3 },
            startedAt: T0,
            finishedAt: sec(90),
            progressNoteUrl: PROGRESS_NOTE,
            jobUrl: JOB_URL,
            questionUrl: `${MR}#note_77`,
          },
          ctx,
        ),
      ],
      ['help', renderHelpReply(ctx, helpEntries())],
    ];
  },
};

/** name → note Markdown, for one language: every registered note kind's examples. */
export function gallery(language: Language): Map<string, string> {
  const notes = new Map<string, string>();
  for (const note of NOTES)
    for (const [name, body] of SPECIMENS[note.name](language)) notes.set(name, body);
  return notes;
}

/** Which note kind and state a gallery entry shows (for the checks that depend on it). */
export function stateOf(name: string): string {
  return name.replace(/^(progress|summary)-(\d-)?/, '');
}
