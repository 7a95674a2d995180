import { expect } from 'chai';
import { GitLabNoteTarget } from '../../../src/gitlab/note-target.ts';
import { createMemoryLogger } from '../../../src/log/logger.ts';
import { Redactor } from '../../../src/log/redact.ts';
import { parseMarker } from '../../../src/report/marker.ts';
import { ProgressPublisher } from '../../../src/report/progress/publisher.ts';
import { initialProgress, setPhaseDetail, startPhase } from '../../../src/core/progress/updates.ts';
import { FakeClock } from '../../../src/core/clock.ts';
import type { Fault } from '../../../src/testkit/gitlab-server/index.ts';
import { startWorld } from '../../gitlab/world.ts';
import { ManualScheduler } from '../../support/manual-scheduler.ts';

/**
 * GitLab faults against the progress note (SPEC H0, H1): the stand-in
 * answers 429, 5xx or nothing at all on the create, an edit and the final
 * edit; the note must end in the run's final state, and only one note exists.
 */
export interface NoteFault {
  name: string;
  fault: Omit<Fault, 'method' | 'path'>;
}

export const GITLAB_FAULTS: readonly NoteFault[] = [
  { name: 'GitLab 429 (Retry-After 1)', fault: { status: 429, retryAfter: 1, times: 2 } },
  { name: 'GitLab 429 (Retry-After 1 h)', fault: { status: 429, retryAfter: 3600, times: 2 } },
  { name: 'GitLab 500', fault: { status: 500, times: 3 } },
  { name: 'GitLab 502/503', fault: { status: 503, times: 2 } },
  { name: 'GitLab timeout', fault: { hang: true, times: 1 } },
];

export const NOTE_MOMENTS = ['create', 'edit', 'final edit'] as const;
type Moment = (typeof NOTE_MOMENTS)[number];

const NOTES = /\/merge_requests\/\d+\/notes$/;
const NOTE = /\/merge_requests\/\d+\/notes\/\d+$/;

export async function noteCell(fault: NoteFault, moment: Moment): Promise<string> {
  const w = await startWorld({ timeoutMs: 1000, maxRetries: 2 });
  try {
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const scheduler = new ManualScheduler(clock);
    const redactor = new Redactor();
    const { logger } = createMemoryLogger({ redactor, level: 'debug' });
    const target = new GitLabNoteTarget(w.gitlab, w.s.project.id, {
      type: 'merge_request',
      iid: 1,
    });
    const initial = startPhase(
      initialProgress({ taskId: 'faults', title: 'Faults', startedAt: clock.now(), jobId: '7' }),
      'execution',
      clock.now(),
    );
    const inject = (method: 'POST' | 'PUT', path: RegExp) =>
      w.standIn.faults.add({ ...fault.fault, method, path });
    if (moment === 'create') inject('POST', NOTES);
    const publisher = await ProgressPublisher.start(
      { target, redactor, logger, clock, scheduler, editIntervalMs: 1000, finalAttempts: 4 },
      initial,
    );
    if (moment === 'edit') inject('PUT', NOTE);
    for (let i = 1; i <= 5; i++) {
      publisher.update((s) => setPhaseDetail(s, 'execution', `action ${i}`));
      await scheduler.advance(1500);
    }
    if (moment === 'final edit') inject('PUT', NOTE);
    const written = await publisher.finish({ state: 'failed', summary: 'The tests failed.' });
    const notes = (
      await w.gitlab.listNotes(w.s.project.id, { type: 'merge_request', iid: 1 })
    ).filter((n) => n.author.id === w.s.bot.id);
    expect(written, 'final state written').to.equal(true);
    expect(notes, 'one progress note').to.have.length(1);
    expect(parseMarker(notes[0]!.body)).to.include({ kind: 'progress', state: 'failed' });
    const hit = w.standIn.requests.entries.filter((e) => e.status === 0 || e.status >= 429).length;
    expect(hit, 'the fault was hit').to.be.at.least(1);
    return `✓ final "failed", 1 note (${hit} faulty answer${hit === 1 ? '' : 's'}, ${publisher.stats.failures} write(s) redone)`;
  } finally {
    await w.close();
  }
}
