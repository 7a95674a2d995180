import { expect } from 'chai';
import { parseMarker } from '../../../src/core/marker.ts';
import { hasUnescapedQuickAction, escapeQuickActions } from '../../../src/report/markdown.ts';
import { renderProgressNote } from '../../../src/report/progress/render.ts';
import { finishRun, initialProgress, setPlan } from '../../../src/report/progress/state.ts';
import { PHASE_DISPLAY_NAMES, PHASES } from '../../../src/core/progress.ts';
import { expectGolden } from '../../support/golden.ts';
import {
  completed,
  executing,
  failedDuringExecution,
  PLAN,
  revisedTwice,
  sec,
  started,
  T0,
} from './scenario.ts';

describe('report/progress/render', () => {
  const goldens = [
    ['started', started],
    ['executing', executing],
    ['revised-twice', revisedTwice],
    ['completed', completed],
    ['failed', failedDuringExecution],
  ] as const;
  for (const [name, build] of goldens) {
    it(`H1 renders the ${name} progress note (golden)`, async () => {
      await expectGolden(`report/progress-${name}.md`, renderProgressNote(build()));
    });
  }

  it('H1 starts with the hidden marker naming job, pipeline, task and state', () => {
    const body = renderProgressNote(executing());
    expect(body.split('\n')[0]).to.equal(
      '<!-- mr-agent:progress job=1234 pipeline=567 task=mr-42-7 state=running -->',
    );
    expect(parseMarker(renderProgressNote(completed()))).to.deep.equal({
      kind: 'progress',
      job: '1234',
      pipeline: '567',
      task: 'mr-42-7',
      state: 'complete',
    });
  });

  it('E6 shows every phase in seed 000 §5.4 order, as text and in the Mermaid flowchart', () => {
    const body = renderProgressNote(executing());
    const positions = PHASES.map((p) => body.indexOf(`| ${PHASE_DISPLAY_NAMES[p]} |`));
    expect(positions.every((p) => p > 0)).to.equal(true);
    expect([...positions].sort((a, b) => a - b)).to.deep.equal(positions);
    expect(body).to.include('```mermaid\nflowchart LR\n');
    expect(body).to.include('execution["🔄 Execution"] --> reflection');
    expect(body).to.include('class pre_planning,planning,environment_setup st_done');
  });

  it('F5 a revised plan keeps the finished items and folds the earlier plans', () => {
    const body = renderProgressNote(revisedTwice());
    expect(body).to.include('### 📋 Execution Plan (Revised #2)');
    expect(body).to.include('**Previous Progress**: 2/4');
    expect(body).to.include('- [x] **task_1**: Read the HTTP client and its tests');
    expect(body).to.include('- [x] **task_2_revised**');
    expect(body).to.match(
      /\*Progress: 2\/4 \(50%\) complete \| Revision: #2 at 2024-11-28 10:03:25 UTC\*/,
    );
    expect(body).to.include('*Plan Revisions: 2 times*');
    expect(body).to.include('<summary>📜 Previous Plan History</summary>');
    expect(body).to.include('#### Original Plan (2024-11-28 10:00:20 UTC)');
    expect(body).to.include('#### Revision #1 (2024-11-28 10:02:10 UTC)');
  });

  it('renders the same text for the same state (no clock inside)', () => {
    expect(renderProgressNote(revisedTwice())).to.equal(renderProgressNote(revisedTwice()));
  });

  it('M3 LLM text in the note cannot run quick actions once escaped', () => {
    let s = initialProgress({ taskId: 't', title: 'x', startedAt: T0 });
    s = setPlan(s, [{ id: 'a', description: 'do it\n/merge', status: 'pending' }], T0);
    s = finishRun(s, { state: 'complete', summary: 'done\n/approve\n  /close', at: sec(1) });
    const body = escapeQuickActions(renderProgressNote(s));
    expect(hasUnescapedQuickAction(body)).to.equal(false);
    expect(body).to.include('\\/approve');
  });

  it('the plan section is absent before planning', () => {
    expect(renderProgressNote(started())).to.not.include('Execution Plan');
    expect(renderProgressNote(setPlan(started(), PLAN, T0))).to.include('### 📋 Execution Plan\n');
  });
});
