import { expect } from 'chai';
import { parseMarker } from '../../../src/report/marker.ts';
import { hasUnescapedQuickAction, escapeQuickActions } from '../../../src/report/markdown.ts';
import { renderProgressNote } from '../../../src/report/progress/render.ts';
import {
  finishRun,
  initialProgress,
  setFacts,
  setPlan,
} from '../../../src/core/progress/updates.ts';
import {
  awaitingAnswer,
  cancelledDuringExecution,
  completed,
  executing,
  failedDuringExecution,
  NO_FACTS,
  PLAN,
  revisedTwice,
  sec,
  started,
  T0,
} from './scenario.ts';

describe('report/progress/render (#24)', () => {
  it('H1 starts with the hidden marker naming job, pipeline, task, state — and (issue 23, for /agent status) phase and steps', () => {
    const body = renderProgressNote(executing());
    expect(body.split('\n')[0]).to.equal(
      '<!-- mr-agent:progress job=1234 pipeline=567 task=mr-42-7 state=running phase=execution done=1 total=3 -->',
    );
    expect(parseMarker(renderProgressNote(completed()))).to.deep.include({
      kind: 'progress',
      job: '1234',
      pipeline: '567',
      task: 'mr-42-7',
      state: 'complete',
    });
  });

  it('issue 23 a run paused on a question names its phase and the ❓ note in the marker; an older marker still parses', () => {
    expect(parseMarker(renderProgressNote(awaitingAnswer()))).to.deep.include({
      state: 'awaiting_answer',
      phase: 'execution',
      question: '77',
    });
    expect(
      parseMarker('<!-- mr-agent:progress job=1 pipeline=2 task=t state=running -->'),
    ).to.deep.equal({ kind: 'progress', job: '1', pipeline: '2', task: 't', state: 'running' });
  });

  it('#24 the first version (the one GitLab notifies about) is short: what was asked, working on it, the job link', () => {
    const body = renderProgressNote(
      initialProgress({
        taskId: 't',
        title: 'fix the test',
        startedAt: T0,
        jobId: '9',
        jobUrl: 'https://g/jobs/9',
      }),
    );
    expect(body).to.contain('### ⏳ Working on it · fix the test');
    expect(body).to.contain('[View job #9](https://g/jobs/9)');
    expect(body).to.not.contain('mermaid').and.not.contain('|').and.not.contain('<details>');
  });

  it('#24 the complete note says what was pushed, the check, the duration and the next step before anything else', () => {
    const lines = renderProgressNote(completed()).split('\n');
    expect(lines[1]).to.equal('### ✅ Done · Add retry logic to the HTTP client');
    expect(lines[3]).to.match(
      /^Pushed ac81f3b3 to `feature\/retry` · 3 files changed · `python -m pytest -q` ✅ · 5m 35s · \[View job #1234\]/,
    );
    expect(lines[5]).to.match(
      /^\*\*Next:\*\* review \[the commit\]\(https:\/\/gitlab\.example\.com\/group\/app\/-\/commit\/ac81f3b3/,
    );
  });

  it('#24 a failed note says whose problem it is and what to do (error catalog blame and hint) and that nothing was pushed', () => {
    const body = renderProgressNote(failedDuringExecution());
    expect(body).to.contain(
      '**The model endpoint answered HTTP 503 three times.** · Nothing was pushed · 1 of 3 steps done',
    );
    expect(body).to.contain('**Next:** This is not caused by your code');
    expect(body).to.contain('Hint: Check the LLM endpoint (MR_AGENT_LLM_BASE_URL)');
    expect(body).to.contain('[retry job #1234](https://gitlab.example.com/group/app/-/jobs/1234)');
    expect(body).to.contain('- [ ] Add retry with exponential backoff — *stopped here*');
  });

  it('#24 cancelled is not failed: who stopped it (`/agent stop` by @dev), nothing pushed, how to resume; the stopped phase shows 🛑', () => {
    const body = renderProgressNote(cancelledDuringExecution());
    expect(body).to.contain('### 🛑 Cancelled');
    expect(body).to.contain('Stopped during Execution: `/agent stop` by @dev');
    expect(body).to.contain('Nothing was pushed');
    expect(body).to.contain('`/agent retry`');
    expect(body).to.contain('**Execution 🛑');
    expect(body).to.not.contain('❌').and.not.contain('RUNNING');
  });

  it('#24 waiting for an answer links the ❓ question and gives the one reply rule; nothing says finished', () => {
    const body = renderProgressNote(awaitingAnswer());
    expect(body).to.contain('### ❓ Waiting for your answer');
    expect(body).to.contain(
      '[2 questions](https://gitlab.example.com/group/app/-/merge_requests/42#note_77) need your answer',
    );
    expect(body).to.contain("**Answer in the ❓ question's thread**");
    expect(body).to.not.match(/finished|final state/i);
  });

  it('#24 plan items read as text: no A1: or task_1: ids', () => {
    let s = setPlan(
      started(),
      [
        { id: 'A1', description: 'A1: task_1: Read the test', status: 'done' },
        { id: 'A2', description: 'task_2: Fix it', status: 'pending' },
      ],
      T0,
    );
    s = finishRun(s, { state: 'failed', summary: 'x', at: sec(1) });
    const body = renderProgressNote(s);
    expect(body).to.contain('- [x] Read the test\n- [ ] Fix it');
    expect(body).to.not.match(/A1:|task_\d/);
  });

  it('#24 a reviewer suggestion shows as one 💡 line outside the fold; the verdict table is folded', () => {
    const body = renderProgressNote(completed());
    const fold = body.indexOf('<details>');
    expect(
      body.indexOf('> 💡 **Reviewer suggestion:** Consider jitter | and a max delay.'),
    ).to.be.within(0, fold);
    expect(body.indexOf('| Change | 💡 Pass with suggestions (review 2 of 3) |')).to.be.greaterThan(
      fold,
    );
  });

  it('#24 tokens get at most 4 grouped rows plus the total', () => {
    const body = renderProgressNote(completed());
    const rows = body
      .split('\n')
      .filter((l) =>
        /^\| (execution|planning & replanning|reviews & checks|other|\*\*Total\*\*) \|/.test(l),
      );
    expect(rows.length).to.be.within(2, 5);
    expect(body).to.contain('| **Total** | 4 | 16,870 |');
  });

  it('#24 the Mermaid diagram appears only when the run looped, folded and top-down', () => {
    expect(renderProgressNote(executing())).to.not.contain('```mermaid');
    const looped = renderProgressNote(revisedTwice());
    expect(looped.indexOf('```mermaid')).to.be.greaterThan(looped.indexOf('<details>'));
    expect(looped).to.contain('flowchart TD');
    expect(looped).to.contain('reflection -. "revise ×2" .-> execution');
  });

  it('#23 a Japanese note uses the catalog for every fixed text', () => {
    const body = renderProgressNote({ ...completed(), language: 'ja' });
    expect(body).to.contain('### ✅ 完了 · ');
    expect(body).to.contain('**次にすること:**');
    expect(body).to.contain('計画前情報収集 4 秒 → 計画 21 秒');
    expect(body).to.contain('**受け入れ条件** — 3 件中 3 件を達成');
  });

  it('renders the same text for the same state (no clock inside)', () => {
    expect(renderProgressNote(revisedTwice())).to.equal(renderProgressNote(revisedTwice()));
  });

  it('M3 LLM text in the note cannot run quick actions once escaped', () => {
    let s = initialProgress({ taskId: 't', title: 'x', startedAt: T0 });
    s = setPlan(s, [{ id: 'a', description: 'do it\n/merge', status: 'pending' }], T0);
    s = setFacts(s, NO_FACTS);
    s = finishRun(s, { state: 'complete', summary: 'done\n/approve\n  /close', at: sec(1) });
    const body = escapeQuickActions(renderProgressNote(s));
    expect(hasUnescapedQuickAction(body)).to.equal(false);
    expect(body).to.include('\\/approve');
  });

  it('the checklist is absent before planning', () => {
    expect(renderProgressNote(started())).to.not.include('- [ ]');
    expect(renderProgressNote(setPlan(started(), PLAN, T0))).to.include(
      '- [ ] Read the HTTP client and its tests',
    );
  });
});

describe('report/progress/render: the Node the tests run on (SPEC E3)', () => {
  for (const [language, text] of [
    ['en', 'tests on Node 16 (none ran on Node 24)'],
    ['ja', 'テストは Node 16 で実行（Node 24 では 1 件も実行されず）'],
  ] as const) {
    it(`E3 when the tests switched to an older Node, the ${language} note's environment line says which`, () => {
      const s = {
        ...completed(),
        language,
        environment: {
          name: 'node',
          status: 'ready' as const,
          setupCommands: 1,
          verificationsPassed: 1,
          verificationsTotal: 1,
          olderNode: { major: 16, current: 24 },
        },
      };
      expect(renderProgressNote(s)).to.include(text);
      const { olderNode: _older, ...without } = s.environment;
      expect(renderProgressNote({ ...s, environment: without })).to.not.include('Node 16');
    });
  }
});
