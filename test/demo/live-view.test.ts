import { expect } from 'chai';
import {
  clipToWidth,
  compactProgress,
  displayWidth,
  LiveView,
  plainLinks,
  watchNotes,
} from '../../src/demo/live-view.ts';
import { renderProgressNote } from '../../src/report/progress/render.ts';
import {
  endPhase,
  initialProgress,
  setPlan,
  startPhase,
  updateItem,
} from '../../src/core/progress/updates.ts';
import { RecordingTarget } from '../support/recording-target.ts';

const T0 = 1_700_000_000_000;

function runningNote(): string {
  let s = initialProgress({
    taskId: 'job-7',
    title: 'fix the failing test',
    startedAt: T0,
    jobId: '7',
    jobUrl: 'http://gitlab.test/g/p/-/jobs/7',
  });
  s = endPhase(startPhase(s, 'pre_planning', T0), 'pre_planning', 'done', T0 + 10);
  s = endPhase(startPhase(s, 'planning', T0 + 10), 'planning', 'done', T0 + 20);
  s = startPhase(s, 'execution', T0 + 30);
  s = setPlan(
    s,
    [
      { id: 'A1', description: 'task_1: Reproduce', status: 'done' },
      { id: 'A2', description: 'task_2: Fix slugify()', status: 'pending' },
    ],
    T0 + 20,
  );
  return renderProgressNote(updateItem(s, 'A2', 'running'));
}

function capture() {
  let text = '';
  return { out: { write: (t: string) => (text += t), columns: 60 }, text: () => text };
}

describe('demo/live-view: the progress note on the terminal (A7)', () => {
  it('compactProgress shows what GitLab shows before the fold: state, change, next step, checklist; links become their labels', () => {
    expect(compactProgress(runningNote(), Number.POSITIVE_INFINITY)).to.deep.equal([
      '⏳ Working on it · fix the failing test',
      'Now: Execution · 1 of 2 steps done · Nothing pushed yet · started 22:13 UTC · View job #7',
      'Next: nothing needed from you yet; this note is updated as the run goes on. Comment `/agent stop` to cancel.',
      '✔ Reproduce',
      '☐ Fix slugify() — ⏳ in progress',
      '▸ Run details · 3 phases',
    ]);
  });

  it('compactProgress clips long lines to the width', () => {
    for (const line of compactProgress(runningNote(), 60))
      expect(displayWidth(line)).to.be.at.most(60);
  });

  it('terminal width: emoji take two columns, colour codes none; clipping keeps within the width', () => {
    expect(displayWidth('✅ done')).to.equal(7);
    expect(displayWidth('\u001b[2mdim\u001b[0m')).to.equal(3);
    expect(clipToWidth('✅✅✅✅', 5)).to.equal('✅✅…');
    expect(clipToWidth('short', 5)).to.equal('short');
  });

  it('plainLinks drops or keeps the URL', () => {
    expect(plainLinks('see [Job #7](http://x/7) now')).to.equal('see Job #7 now');
    expect(plainLinks('see [Job #7](http://x/7)', true)).to.equal('see Job #7 <http://x/7>');
  });

  it('plain output prints only the lines that changed between versions', () => {
    const { out, text } = capture();
    const view = new LiveView(out, { live: false, color: false });
    view.show(['State: planning', 'A1 pending'], 'v1');
    view.show(['State: executing', 'A1 pending'], 'v2');
    view.show(['State: executing', 'A1 pending'], 'v3');
    expect(text()).to.equal('v1\n    State: planning\n    A1 pending\nv2\n    State: executing\n');
    expect(text()).to.not.contain('\u001b[');
  });

  it('on a terminal the region is redrawn in place under the narration, clipped to the width', () => {
    const { out, text } = capture();
    const view = new LiveView(out, { live: true, color: false });
    view.show(['one', 'x'.repeat(100)], 'note');
    view.line('a narration line');
    // clears the 3-line region, prints the line, draws the region again below it
    expect(text()).to.contain('\u001b[3A\u001b[0Ja narration line\n');
    const last = text().split('a narration line\n')[1]!.split('\n');
    expect(last[0]).to.equal('note');
    expect(last[2]!.length).to.equal(59);
    view.release();
    view.line('after');
    expect(text().endsWith('after\n')).to.equal(true);
    expect(text().split('after')[0]!.endsWith('…\n')).to.equal(true);
  });

  it('watchNotes passes every write to GitLab, shows the progress note and announces the others', async () => {
    const { out, text } = capture();
    const view = new LiveView(out, { live: false, color: false });
    const gitlab = new RecordingTarget();
    const watched = watchNotes(gitlab, view, (kind) => `● ${kind} note posted`);
    const { id } = await watched.target.createNote(runningNote());
    await watched.target.editNote(id, runningNote().replace('Fix slugify()', 'Fix slugify() now'));
    await watched.target.createNote('<!-- mr-agent:summary task=job-7 -->\n## Done');
    expect(gitlab.creates).to.equal(2);
    expect(gitlab.edits).to.equal(1);
    expect(watched.progressId()).to.equal(id);
    expect(watched.bodies.size).to.equal(2);
    expect(text()).to.contain('progress note 1, version 2\n    ☐ Fix slugify() now');
    expect(text()).to.contain('● summary note posted');
  });
});
