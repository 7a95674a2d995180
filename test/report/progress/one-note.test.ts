import { expect } from 'chai';
import { Redactor } from '../../../src/log/redact.ts';
import {
  addReplanEvent,
  finishRun,
  revisePlan,
  setFacts,
} from '../../../src/core/progress/updates.ts';
import type { ErrorFacts } from '../../../src/core/progress/model.ts';
import { hasUnescapedQuickAction } from '../../../src/report/markdown.ts';
import { postNote } from '../../../src/report/note-body.ts';
import { renderProgressNote } from '../../../src/report/progress/render.ts';
import { RecordingTarget } from '../../support/recording-target.ts';
import { completed, executing, longRun, NO_FACTS, PLAN, sec } from './scenario.ts';

/** The part of the note outside the folded details. */
const unfolded = (note: string) => note.replace(/<details>[\s\S]*?<\/details>/g, '');

describe('report/progress: one note per run, long runs read like short ones (issue 32)', () => {
  it('H1 a step retried 10 times is one checklist item carrying its retries', () => {
    const note = renderProgressNote(longRun());
    const top = unfolded(note);
    expect(top).to.contain('- [x] Add retry with exponential backoff — *failed 11×, then done*');
    expect(top.match(/Add retry with exponential backoff/g)).to.have.length(1);
    expect(top).to.not.contain('Plan revised');
  });

  it('H1 no internal id outside the folds, and no diagram without a loop', () => {
    const note = renderProgressNote(longRun());
    expect(unfolded(note)).to.not.match(/\btask_\d|\bA\d+:/);
    expect(note).to.not.contain('```mermaid');
  });

  it('F3 a replan stopped by a limit says why and what the run did, in the history', () => {
    const note = renderProgressNote(longRun());
    expect(note).to.contain(
      'at execution, “retry the step” was not carried out: the limit on all replans is reached (10 of 10, `planning.replanning.global.max_total_replans`); the run went on with the current plan',
    );
    const ja = renderProgressNote({ ...longRun(), language: 'ja' });
    expect(ja).to.contain('再計画全体の上限に達しました（10 回中 10 回');
    expect(ja).to.contain('11 回失敗した後に完了');
  });

  it('H1 the history keeps the last two plans and counts the older ones', () => {
    let s = executing();
    for (let i = 1; i <= 4; i++)
      s = revisePlan(s, {
        items: PLAN,
        reason: `reason ${i}`,
        change: 'partial_replan',
        at: sec(100 + i),
      });
    const note = renderProgressNote(s);
    expect(note.match(/\*\*(Original plan|Revision \d)/g)).to.have.length(2);
    expect(note).to.contain('_2 earlier plans not shown_');
  });

  it("M3 L1 the model's reasoning in the history is escaped and masked when posted", async () => {
    const redactor = new Redactor();
    redactor.add('glpat-abcdefghijklmnop');
    const target = new RecordingTarget();
    const s = addReplanEvent(executing(), {
      event: 'started',
      point: 'execution',
      kind: 'partial_replan',
      reasoning: 'Token glpat-abcdefghijklmnop works.\n/merge\n/approve',
      at: sec(130),
    });
    await postNote(target, renderProgressNote(s), { redactor });
    const posted = target.lastBody();
    expect(posted).to.not.include('glpat-abcdefghijklmnop');
    expect(hasUnescapedQuickAction(posted)).to.equal(false);
  });
});

describe('report/progress: failures blamed by HTTP status (issue 32)', () => {
  const failedWith = (error: ErrorFacts, language: 'en' | 'ja' = 'en') => {
    const s = setFacts(executing(), { ...NO_FACTS, error });
    return renderProgressNote({
      ...finishRun(s, { state: 'failed', summary: error.message, at: sec(90) }),
      language,
    });
  };

  it('H3 a refused key (401) names the variable to check, not "a service failed"', () => {
    const error: ErrorFacts = {
      message: 'the execution request to gpt-x was refused (401): invalid key',
      blame: 'service',
      hintKey: 'hint.llm.401',
      status: 401,
      service: 'llm',
      credential: 'OPENAI_API_KEY',
    };
    const note = failedWith(error);
    expect(note).to.contain(
      'The model endpoint refused the key (HTTP 401): check the key in `OPENAI_API_KEY`.',
    );
    expect(note).to.not.contain('failed. Ask a maintainer');
    expect(failedWith(error, 'ja')).to.contain('`OPENAI_API_KEY` のキーを確認してください');
  });

  it('H3 a GitLab 403 blames the token and its role', () => {
    const note = failedWith({
      message: 'POST /projects/5/notes answered HTTP 403: forbidden',
      blame: 'service',
      hintKey: 'hint.gitlab.403',
      status: 403,
      service: 'gitlab',
    });
    expect(note).to.contain('GitLab refused the token (HTTP 403): check the GitLab token.');
  });

  it('H3 a rate limit (429) says so, with the wait', () => {
    const note = failedWith({
      message: 'the planning request to gpt-x failed after 4 attempts (rate_limit)',
      blame: 'service',
      status: 429,
      service: 'llm',
      retryAfterMs: 90_000,
    });
    expect(note).to.contain(
      'The model endpoint limited the rate of requests (HTTP 429): wait 1m 30s, then try again.',
    );
  });
});

describe('report/progress: a 💡 suggestion links the files and lines it names (issue 32)', () => {
  it('H1 `file:line` in a reviewer suggestion links that line of the pushed commit', () => {
    const s = completed();
    const reviews = s.reviews.map((r) =>
      r.result === 'PASS_WITH_SUGGESTIONS'
        ? {
            ...r,
            feedback: 'Cap the delay in http/retry.py:12 and test it in tests/test_retry.py:40.',
          }
        : r,
    );
    const note = renderProgressNote({ ...s, reviews });
    const base =
      'https://gitlab.example.com/group/app/-/blob/ac81f3b3296b9705f7e7e762226486e893306868';
    expect(note).to.contain(`[http/retry.py:12](${base}/http/retry.py#L12)`);
    expect(note).to.contain(`[tests/test_retry.py:40](${base}/tests/test_retry.py#L40)`);
  });

  it('H1 without a pushed commit the suggestion is left as written', () => {
    const s = completed();
    const reviews = s.reviews.map((r) => ({ ...r, feedback: 'See http/retry.py:12.' }));
    const note = renderProgressNote({
      ...s,
      reviews,
      facts: { ...s.facts!, delivery: undefined } as never,
    });
    expect(note).to.contain('See http/retry.py:12.').and.not.contain('/-/blob/');
  });
});
