import {
  addUsage,
  addReplanEvent,
  countReplan,
  endPhase,
  finishRun,
  initialProgress,
  recordReview,
  retryStep,
  revisePlan,
  setEnvironment,
  setCancelCause,
  setFacts,
  setPlan,
  setRelated,
  startPhase,
  updateItem,
} from '../../../src/core/progress/updates.ts';
import type { ChecklistItem, ProgressState, RunFacts } from '../../../src/core/progress/model.ts';

export const PROJECT = 'https://gitlab.example.com/group/app';
export const MR = `${PROJECT}/-/merge_requests/42`;
export const TASK_NOTE = `${PROJECT}/-/jobs/1234/artifacts/file/.mr-agent/task-mr-42-7.md`;
export const NO_FACTS: RunFacts = { changedFiles: [], checks: [], criteria: [], questions: 0 };

/** 2024-11-28 10:00:00 UTC */
export const T0 = Date.UTC(2024, 10, 28, 10, 0, 0);
export const sec = (n: number) => T0 + n * 1000;

export const PLAN: ChecklistItem[] = [
  { id: 'task_1', description: 'Read the HTTP client and its tests', status: 'pending' },
  { id: 'task_2', description: 'Add retry with exponential backoff', status: 'pending' },
  { id: 'task_3', description: 'Write tests for the retry logic', status: 'pending' },
];

export function started(): ProgressState {
  return startPhase(
    initialProgress({
      taskId: 'mr-42-7',
      title: 'Add retry logic to the HTTP client',
      startedAt: T0,
      jobId: '1234',
      pipelineId: '567',
      jobUrl: 'https://gitlab.example.com/group/app/-/jobs/1234',
    }),
    'pre_planning',
    T0,
  );
}

/** Planned, environment ready, executing task_2. */
export function executing(): ProgressState {
  let s = started();
  s = endPhase(s, 'pre_planning', 'done', sec(4));
  s = startPhase(s, 'planning', sec(4));
  s = setPlan(s, PLAN, sec(20));
  s = recordReview(s, { phase: 'planning', result: 'PASS', attempt: 1, maxAttempts: 3 });
  s = endPhase(s, 'planning', 'done', sec(25));
  s = startPhase(s, 'environment_setup', sec(25));
  s = setEnvironment(s, {
    name: 'python',
    status: 'ready',
    setupCommands: 2,
    verificationsPassed: 2,
    verificationsTotal: 2,
    durationMs: 41_000,
  });
  s = endPhase(s, 'environment_setup', 'done', sec(66));
  s = startPhase(s, 'execution', sec(66));
  s = updateItem(s, 'task_1', 'done');
  s = updateItem(s, 'task_2', 'running');
  s = addUsage(s, 'planning', { promptTokens: 3200, completionTokens: 850 });
  s = addUsage(s, 'review', { promptTokens: 1900, completionTokens: 120 });
  s = addUsage(s, 'execution', { promptTokens: 5400, completionTokens: 700 });
  return s;
}

/** task_2 failed; reflection led to two revisions. */
export function revisedTwice(): ProgressState {
  let s = executing();
  s = updateItem(s, 'task_2', 'failed', 'tests/test_client.py: ImportError');
  s = startPhase(s, 'reflection', sec(120));
  s = revisePlan(s, {
    change: 'partial_replan',
    reason: 'The retry helper must live in a separate module to avoid a circular import.',
    at: sec(130),
    items: [
      {
        id: 'task_2_revised',
        description: 'Create http/retry.py with the backoff helper',
        status: 'pending',
      },
      { id: 'task_3', description: 'Write tests for the retry logic', status: 'pending' },
      { id: 'task_4_new', description: 'Use the helper in the client', status: 'pending' },
    ],
  });
  s = countReplan(s);
  // seed 003 §11.1: the replan's start and completion, in the note's history
  s = addReplanEvent(s, {
    event: 'started',
    point: 'execution',
    kind: 'partial_replan',
    at: sec(129),
  });
  s = addReplanEvent(s, {
    event: 'completed',
    point: 'execution',
    at: sec(131),
    durationMs: 2_000,
  });
  s = endPhase(s, 'reflection', 'done', sec(131));
  s = updateItem(s, 'task_2_revised', 'done');
  s = startPhase(s, 'reflection', sec(200));
  s = revisePlan(s, {
    change: 'action_regeneration',
    reason: 'pytest is not installed; tests must run through `python -m pytest`.',
    at: sec(205),
    items: [
      {
        id: 'task_3',
        description: 'Write tests and run them with python -m pytest',
        status: 'pending',
      },
      { id: 'task_4_new', description: 'Use the helper in the client', status: 'pending' },
    ],
  });
  s = endPhase(s, 'reflection', 'done', sec(206));
  s = updateItem(s, 'task_3', 'running');
  s = addUsage(s, 'reflection', { promptTokens: 4100, completionTokens: 600 });
  return s;
}

export function completed(): ProgressState {
  let s = revisedTwice();
  s = updateItem(s, 'task_3', 'done');
  s = updateItem(s, 'task_4_new', 'done');
  s = endPhase(s, 'execution', 'done', sec(300));
  s = startPhase(s, 'verification', sec(300));
  s = recordReview(s, {
    phase: 'execution',
    result: 'PASS_WITH_SUGGESTIONS',
    attempt: 2,
    maxAttempts: 3,
    feedback: 'Consider jitter | and a max delay.',
  });
  s = endPhase(s, 'verification', 'done', sec(330));
  s = setFacts(s, {
    ...NO_FACTS,
    delivery: {
      status: 'pushed',
      branch: 'feature/retry',
      commit: 'ac81f3b3296b9705f7e7e762226486e893306868',
      commitUrl: `${PROJECT}/-/commit/ac81f3b3296b9705f7e7e762226486e893306868`,
    },
    changedFiles: ['http/retry.py', 'http/client.py', 'tests/test_retry.py'],
    checks: [{ command: 'python -m pytest -q', passed: true, timedOut: false, durationMs: 12_400 }],
    criteria: [
      { text: 'GET requests are retried on 429 and 5xx', passed: true },
      { text: 'The delay doubles after each attempt', passed: true },
      { text: 'The whole test suite passes', passed: true },
    ],
    taskNoteUrl: TASK_NOTE,
  });
  s = { ...s, usage: { ...s.usage, costUsd: 0.0421 } };
  return finishRun(s, {
    state: 'complete',
    summary:
      'Added `http/retry.py` with exponential backoff and used it in the client.\nAll 14 tests pass.',
    at: sec(335),
  });
}

export function failedDuringExecution(): ProgressState {
  const s = setFacts(executing(), {
    ...NO_FACTS,
    error: {
      message: 'The model endpoint answered HTTP 503 three times.',
      blame: 'service',
      hint: 'Check the LLM endpoint (MR_AGENT_LLM_BASE_URL) and its status page.',
    },
    taskNoteUrl: TASK_NOTE,
  });
  return finishRun(s, {
    state: 'failed',
    summary: 'The model endpoint answered HTTP 503 three times.',
    at: sec(90),
  });
}

/** `/agent stop` by @dev while executing. */
export function cancelledDuringExecution(): ProgressState {
  const s = setCancelCause(setFacts(executing(), NO_FACTS), { kind: 'stop-command', by: 'dev' });
  return finishRun(s, { state: 'cancelled', summary: 'received SIGTERM', at: sec(80) });
}

/** Paused by `/agent pause` after the current action (seed 002): resumable with `/agent resume`. */
export function pausedDuringExecution(): ProgressState {
  const s = setFacts(executing(), NO_FACTS);
  return finishRun(s, { state: 'paused', summary: 'Paused on request.', at: sec(75) });
}

/** Stopped before a model call would pass `budget.max_usd`: resumable, spend against the limit shown. */
export function budgetReached(): ProgressState {
  const s = setFacts(
    {
      ...executing(),
      budget: {
        spentUsd: 1.93,
        spentTokens: 48_210,
        priced: true,
        limitUsd: 2,
        stoppedBy: 'max_usd',
      },
    },
    NO_FACTS,
  );
  return finishRun(s, {
    state: 'budget_exhausted',
    summary: 'Budget reached (budget.max_usd) after 2 actions; 1 left.',
    at: sec(75),
  });
}

/** Stopped on two questions (auto_assume_timeout_minutes: 0). */
export function awaitingAnswer(): ProgressState {
  let s = setFacts(executing(), { ...NO_FACTS, questions: 2 });
  s = setRelated(s, 'question', `${MR}#note_77`);
  return finishRun(s, {
    state: 'awaiting_answer',
    summary: 'Questions for the people on the request.',
    at: sec(90),
  });
}

/** The plan-revision limit was reached (seed 001 §10.4). */
export function needsHuman(): ProgressState {
  let s = revisedTwice();
  s = updateItem(s, 'task_3', 'failed', 'pytest still cannot import the client');
  s = setFacts(s, { ...NO_FACTS, revisionsUsed: 2, taskNoteUrl: TASK_NOTE });
  s = setRelated(s, 'human-help', `${MR}#note_78`);
  return finishRun(s, { state: 'needs_human', summary: 'Needs a person.', at: sec(260) });
}

/** The job ended without its final state (a later run found it so). */
export function interrupted(): ProgressState {
  return finishRun(executing(), { state: 'interrupted', summary: '', at: sec(70) });
}

/**
 * A long run: one step failed 10 times, retried after each replan decision,
 * until the limit on all replans stopped the eleventh; then it succeeded.
 */
export function longRun(): ProgressState {
  let s = executing();
  const step = 'Add retry with exponential backoff';
  const items = (tries: number, last: ChecklistItem['status']): ChecklistItem[] => [
    { id: 'task_1', description: 'Read the HTTP client and its tests', status: 'done' },
    ...Array.from({ length: tries }, (_, i) => ({
      id: `A${i + 2}`,
      description: `task_2: ${step}`,
      status: i === tries - 1 ? last : ('failed' as const),
    })),
    { id: 'task_3', description: 'Write tests for the retry logic', status: 'pending' },
  ];
  for (let i = 1; i <= 10; i++) {
    const at = sec(70 + i * 20);
    s = retryStep(s, items(i + 1, 'pending'));
    s = countReplan(s);
    s = addReplanEvent(s, {
      event: 'started',
      point: 'execution',
      kind: 'retry',
      reasoning: 'The connection was reset; try again.',
      at,
    });
    s = addReplanEvent(s, {
      event: 'completed',
      point: 'execution',
      at: at + 2000,
      durationMs: 2000,
    });
  }
  s = addReplanEvent(s, {
    event: 'not_carried_out',
    point: 'execution',
    kind: 'retry',
    reasoning: 'The connection was reset; try again.',
    override: {
      kind: 'total_limit',
      used: 10,
      limit: 10,
      option: 'planning.replanning.global.max_total_replans',
    },
    then: { kind: 'continue' },
    at: sec(290),
  });
  s = retryStep(s, items(12, 'done'));
  s = updateItem(s, 'task_3', 'done');
  s = endPhase(s, 'execution', 'done', sec(300));
  s = setFacts(s, { ...NO_FACTS, checks: [], changedFiles: ['http/retry.py'] });
  return finishRun(s, {
    state: 'complete',
    summary: 'Added `http/retry.py` with exponential backoff.',
    at: sec(310),
  });
}
