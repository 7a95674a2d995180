/**
 * Issue 18 §6 (SPEC H1): edits of the progress note are paced from the END of
 * the previous write, so GitLab never carries out two edits of one note less
 * than the interval apart — also when one edit is slow to answer. Real
 * clock, real timers, real HTTP against the stand-in, which logs when it
 * carried each request out.
 */
import { expect } from 'chai';
import { GitLabNoteTarget } from '../../../src/gitlab/note-target.ts';
import { createSilentLogger } from '../../../src/log/logger.ts';
import { Redactor } from '../../../src/log/redact.ts';
import { parseMarker } from '../../../src/report/marker.ts';
import { ProgressPublisher } from '../../../src/report/progress/publisher.ts';
import { initialProgress, setPhaseDetail, startPhase } from '../../../src/core/progress/updates.ts';
import { systemClock } from '../../../src/core/clock.ts';
import { startWorld, type World } from '../../gitlab/world.ts';

const NOTE = '/projects/:id/merge_requests/:iid/notes/:note_id';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('report/progress pacing over HTTP (issue 18 §6, H1)', function () {
  this.timeout(30_000);
  let w: World;
  beforeEach(async () => {
    w = await startWorld();
  });
  afterEach(() => w.close());

  it('issue 18 done-when: no two edits of the note reach GitLab less than 1 s apart, a slow edit included; the final edit is written', async () => {
    const publisher = await ProgressPublisher.start(
      {
        target: new GitLabNoteTarget(w.gitlab, w.s.project.id, { type: 'merge_request', iid: 1 }),
        redactor: new Redactor(),
        logger: createSilentLogger(),
        clock: systemClock,
        editIntervalMs: 1000,
      },
      startPhase(
        initialProgress({ taskId: 'pace', title: 'Pace', startedAt: Date.now(), jobId: '5' }),
        'execution',
        Date.now(),
      ),
    );
    // the first edit takes 700 ms before GitLab carries it out; the others are quick
    w.standIn.faults.add({ method: 'PUT', delayMs: 700 });
    for (let i = 1; i <= 30; i += 1) {
      publisher.update((s) => setPhaseDetail(s, 'execution', `action ${i}`));
      await sleep(100);
    }
    expect(await publisher.finish({ state: 'complete', summary: 'Done.' })).to.equal(true);

    const edits = w.standIn.requests.entries
      .filter((e) => e.method === 'PUT' && e.route === NOTE)
      .map((e) => e.at!);
    expect(edits.length, 'edits').to.be.at.least(3);
    const gaps = edits.slice(1).map((at, i) => at - edits[i]!);
    expect(Math.min(...gaps), `gaps between edits: ${gaps.join(', ')} ms`).to.be.at.least(1000);
    const note = w.standIn.model.notes.find((n) => n.authorId === w.s.bot.id)!;
    expect(parseMarker(note.body)).to.include({ state: 'complete' });
  });
});
