import { expect } from 'chai';
import { parseMarker } from '../../src/report/marker.ts';
import {
  renderClarificationNote,
  renderClarificationSettled,
} from '../../src/report/notes/clarification-note.ts';
import {
  HumanInterventionResult,
  renderHumanInterventionNote,
} from '../../src/report/notes/human-intervention-note.ts';
import { helpLines, renderHelpReply } from '../../src/report/notes/reply-note.ts';
import { helpEntries } from '../../src/commands/replies.ts';
import { renderSummaryNote } from '../../src/report/notes/summary-note.ts';
import { completed } from './progress/scenario.ts';

const ctx = {
  taskId: 'mr-42-7',
  jobId: '1234',
  pipelineId: '567',
  requester: 'dana',
  title: 'Add retry',
};

const question = {
  questions: ['Should retries apply to POST requests?', 'What is the largest delay?'],
  context: 'Retrying non-idempotent requests can create duplicates.',
  assumptions: ['only GET is retried', 'at most 30 s'],
  minAccessLabel: 'Developer',
};

describe('report/notes (#24)', () => {
  it('F4 #24 the ❓ note @mentions the requester, gives each question its default and a clock-time deadline', () => {
    const body = renderClarificationNote(
      { ...question, waitMinutes: 30, autoAssume: true, askedAt: Date.UTC(2024, 10, 28, 10, 2) },
      ctx,
    );
    expect(body).to.contain('### ❓ @dana, 2 questions before I continue · Add retry');
    expect(body).to.contain(
      '1. **Should retries apply to POST requests?**  \n   If not answered: only GET is retried',
    );
    expect(body).to.contain('At 10:32 UTC (in 30m) I will go on with the defaults above.');
    expect(body).to.not.contain('AI Decision');
    expect(parseMarker(body)).to.include({ kind: 'clarification', state: 'waiting' });
  });

  it('F4 with a timeout of 0 the ❓ note says the run is paused (marker awaiting_answer)', () => {
    const body = renderClarificationNote({ ...question, waitMinutes: 0, autoAssume: true }, ctx);
    expect(body).to.include('The run is paused until someone replies here.');
    expect(parseMarker(body)).to.include({ kind: 'clarification', state: 'awaiting_answer' });
  });

  it('#24 one reply rule, worded identically in the waiting progress note and the help reply; the ❓ note itself says "this thread", with an example', () => {
    const rule =
      "**Answer in the ❓ question's thread**: reply there, no `/agent` needed; the run goes on with your answer.";
    const note = renderClarificationNote({ ...question, waitMinutes: 0, autoAssume: false }, ctx);
    expect(note).to.not.contain(rule);
    expect(note).to.contain('**Reply in this thread**').and.contain('`1. <your answer>`');
    expect(helpLines(ctx, helpEntries())).to.include(rule);
    expect(
      renderClarificationSettled('answered', { waitMinutes: 0, answeredBy: ['dana', 'dana'] }, ctx),
    ).to.equal('✅ Answered by @dana: going on with the answers.');
  });

  it('F2 #24 the 🙋 note: why in numbers (no max_revisions = …), the next step, what to look at', () => {
    const parsed = HumanInterventionResult.parse({
      phase: 'completion',
      status: 'requires_human_intervention',
      summary: {
        goal_achieved: false,
        tasks_completed: 3,
        tasks_failed: 2,
        revision_attempts: 3,
        reason: 'The plan revision limit was reached (max_revisions = 3).',
        current_state: 'Two tests still time out.',
        recommendations: ['Check the file paths by hand'],
      },
      comment: 'x',
    });
    const body = renderHumanInterventionNote(parsed, ctx);
    expect(body).to.contain('### 🙋 @dana, I need a person to step in · Add retry');
    expect(body).to.contain(
      '**Why:** Not converging after 3 plan revisions, the most allowed. Nothing was pushed; 3 of 5 steps done, 2 failed.',
    );
    expect(body).to.contain('**Next:** read what was tried, then comment `/agent <instruction>`');
    expect(body).to.contain('- Check the file paths by hand');
    expect(body).to.not.contain('max_revisions');
  });

  it('H2 the closing reply is one short note: it @mentions the requester, says the outcome and links the progress note', () => {
    const body = renderSummaryNote(completed(), {
      progressNote: 'https://g/mr/42#note_70',
      requester: 'dana',
    });
    const lines = body.trim().split('\n').filter(Boolean);
    expect(lines[1]).to.equal('@dana, ✅ **Done** · Add retry logic to the HTTP client');
    expect(body)
      .to.contain('Pushed ac81f3b3 to')
      .and.contain('[progress note](https://g/mr/42#note_70)');
    expect(lines, 'marker, state, change, link').to.have.length(4);
    // nothing the progress note already shows is repeated
    expect(body).to.not.contain('- [x]').and.not.contain('Acceptance criteria');
    expect(parseMarker(body)).to.include({ kind: 'summary', state: 'complete' });
  });

  it('#24 help lists the commands with the command prefix of the project', () => {
    const body = renderHelpReply({ ...ctx, commandPrefix: '/bot' }, helpEntries());
    expect(body).to.contain(
      '- `/bot <instruction>` — make the change you describe and push it here',
    );
    expect(body).to.contain(
      '- `/bot approve` — carry out the plan posted by `/bot plan`, as written',
    );
  });
});
