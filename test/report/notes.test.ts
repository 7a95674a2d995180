import { expect } from 'chai';
import { Redactor } from '../../src/log/redact.ts';
import { parseMarker } from '../../src/core/marker.ts';
import { hasUnescapedQuickAction } from '../../src/report/markdown.ts';
import { postNote } from '../../src/report/note-body.ts';
import { renderClarificationNote } from '../../src/report/notes/clarification-note.ts';
import {
  HumanInterventionResult,
  renderHumanInterventionNote,
} from '../../src/report/notes/human-intervention-note.ts';
import { renderReplanNote } from '../../src/report/notes/replan-note.ts';
import { renderHelpReply, renderStatusReply } from '../../src/report/notes/reply-note.ts';
import { renderSummaryNote } from '../../src/report/notes/summary-note.ts';
import type { SummaryNoteInput } from '../../src/report/notes/summary-note.ts';
import { expectGolden } from '../support/golden.ts';
import { RecordingTarget } from '../support/recording-target.ts';
import { sec, T0 } from './progress/scenario.ts';

const ctx = { taskId: 'mr-42-7', jobId: '1234', pipelineId: '567' };

const replan = {
  phase: 'execution',
  confidence: 0.85,
  reasoning: 'The import of `retry` creates a cycle between client.py and session.py.',
  issuesFound: ['ImportError in tests/test_client.py', 'retry helper placed in the wrong module'],
  recommendedActions: ['Move the helper to http/retry.py', 'Re-run the tests'],
  replanType: 'partial_replan',
  replanLevel: 2,
  at: sec(130),
};

const intervention: HumanInterventionResult = {
  phase: 'completion',
  status: 'requires_human_intervention',
  summary: {
    goal_achieved: false,
    tasks_completed: 3,
    tasks_failed: 2,
    revision_attempts: 3,
    reason: 'Plan revision limit reached',
    current_state: 'The client compiles, but two integration tests still time out.',
    recommendations: [
      'Check the file paths by hand',
      'Check that the needed permissions are granted',
    ],
  },
  comment: 'Automatic processing is difficult, so human intervention is needed.',
};

const summary: SummaryNoteInput = {
  state: 'complete',
  title: 'Add retry logic to the HTTP client',
  summary: 'Added exponential backoff to the HTTP client.',
  goalAchieved: true,
  keyOutcomes: ['New module http/retry.py', 'Client retries 429 and 5xx'],
  tasksCompleted: 4,
  tasksFailed: 0,
  validation: [
    { command: 'python -m pytest -q', exitCode: 0, durationMs: 12_400 },
    { command: 'ruff check .', exitCode: 1, durationMs: 800 },
    { command: 'make slow', exitCode: null, durationMs: 600_000, timedOut: true },
  ],
  changedFiles: ['http/retry.py', 'http/client.py', 'tests/test_retry.py'],
  delivery: {
    branch: 'feature/retry',
    commit: '0123456789abcdef0123',
    mergeRequestUrl: 'https://gitlab.example.com/group/app/-/merge_requests/42',
  },
  durationMs: 335_000,
  totalTokens: 16_870,
  costUsd: 0.0421,
  links: [
    {
      label: 'Progress note',
      url: 'https://gitlab.example.com/group/app/-/merge_requests/42#note_9',
    },
  ],
};

describe('report/notes', () => {
  it('F5 renders the 🔄 replan decision note (golden, seed 003 §11.2)', async () => {
    await expectGolden('report/note-replan.md', renderReplanNote(replan, ctx));
  });

  it('F3 an overridden decision says it was not carried out', () => {
    const body = renderReplanNote(
      { ...replan, executed: false, overrideReason: 'limit reached (2/2)' },
      ctx,
    );
    expect(body).to.include('**Not carried out**: limit reached (2/2)');
    expect(body).to.include('**Confidence**: 85%');
  });

  it('F4 renders the ❓ clarification note with questions and assumptions (golden, seed 003 §11.3)', async () => {
    const body = renderClarificationNote(
      {
        questions: [
          'Should retries apply to POST requests?',
          'What is the largest acceptable delay?',
        ],
        context: 'Retrying non-idempotent requests can create duplicates.',
        assumptions: ['Only GET, HEAD and PUT are retried', 'The delay is capped at 30 seconds'],
        waitMinutes: 30,
        autoAssume: true,
        minAccessLabel: 'Developer',
      },
      ctx,
    );
    await expectGolden('report/note-clarification.md', body);
  });

  it('F4 with a timeout of 0 the clarification note says the run is paused', () => {
    const body = renderClarificationNote(
      {
        questions: ['Which API?'],
        context: 'x',
        assumptions: [],
        waitMinutes: 0,
        autoAssume: true,
      },
      ctx,
    );
    expect(body).to.include('The run is paused until someone replies in this thread');
    expect(parseMarker(body)).to.include({ kind: 'clarification', state: 'awaiting_answer' });
  });

  it('F2 renders the human-intervention note from the seed 001 §10.4 JSON (golden)', async () => {
    const parsed = HumanInterventionResult.parse(intervention);
    await expectGolden(
      'report/note-human-intervention.md',
      renderHumanInterventionNote(parsed, ctx),
    );
  });

  it('H2 renders the final summary note (golden)', async () => {
    await expectGolden('report/note-summary.md', renderSummaryNote(summary, ctx));
  });

  it('A6 renders status and help replies', async () => {
    const status = renderStatusReply(
      {
        state: 'running',
        phase: 'Execution',
        progress: { done: 2, total: 4 },
        startedAt: T0,
        progressNoteUrl: 'https://gitlab.example.com/x#note_9',
      },
      ctx,
    );
    await expectGolden('report/note-reply-status.md', status);
    await expectGolden('report/note-reply-help.md', renderHelpReply(ctx));
  });

  it('every note starts with its hidden marker', () => {
    const kinds = [
      renderReplanNote(replan, ctx),
      renderClarificationNote(
        { questions: [], context: '', assumptions: [], waitMinutes: 5, autoAssume: true },
        ctx,
      ),
      renderHumanInterventionNote(intervention, ctx),
      renderSummaryNote(summary, ctx),
      renderHelpReply(ctx),
    ].map((b) => parseMarker(b.split('\n')[0]!)?.kind);
    expect(kinds).to.deep.equal([
      'replan',
      'clarification',
      'human-intervention',
      'summary',
      'reply',
    ]);
  });

  it('M3 L1 LLM text with quick actions and a token is escaped and masked when posted', async () => {
    const redactor = new Redactor();
    redactor.add('glpat-abcdefghijklmnop');
    const target = new RecordingTarget();
    const body = renderReplanNote(
      {
        ...replan,
        reasoning: 'Token glpat-abcdefghijklmnop works.\n/merge\n/approve\n> /close',
        issuesFound: ['/unassign @me'],
      },
      ctx,
    );
    await postNote(target, body, { redactor, replyTo: 'disc-1' });
    const posted = target.lastBody();
    expect(posted).to.include('\\/merge\n\\/approve\n> \\/close');
    expect(posted).to.not.include('glpat-abcdefghijklmnop');
    expect(hasUnescapedQuickAction(posted)).to.equal(false);
    expect(target.calls[0]!.replyTo).to.equal('disc-1');
  });
});
