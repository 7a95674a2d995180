import { expect } from 'chai';
import { createMemoryLogger, createSilentLogger } from '../../../src/log/logger.ts';
import { Redactor } from '../../../src/log/redact.ts';
import { parseMarker } from '../../../src/report/marker.ts';
import { hasUnescapedQuickAction } from '../../../src/report/markdown.ts';
import { ProgressPublisher } from '../../../src/report/progress/publisher.ts';
import type { ProgressPublisherOptions } from '../../../src/report/progress/publisher.ts';
import {
  setPhaseDetail,
  setPlan,
  startPhase,
  updateItem,
} from '../../../src/core/progress/updates.ts';
import type { ProgressState } from '../../../src/core/progress/model.ts';
import { FakeClock } from '../../../src/core/clock.ts';
import { ManualScheduler, settle } from '../../support/manual-scheduler.ts';
import { RecordingTarget } from '../../support/recording-target.ts';
import { PLAN, started } from './scenario.ts';

function setup(overrides: Partial<ProgressPublisherOptions> = {}) {
  const clock = new FakeClock(Date.UTC(2024, 10, 28, 10, 0, 0));
  const scheduler = new ManualScheduler(clock);
  const target = new RecordingTarget();
  const redactor = new Redactor();
  const options: ProgressPublisherOptions = {
    target,
    redactor,
    logger: createSilentLogger(),
    clock,
    scheduler,
    editIntervalMs: 1000,
    ...overrides,
  };
  return { clock, scheduler, target, redactor, options };
}

/** A change the note shows (the title is in its heading). */
function detail(n: number) {
  return (s: ProgressState) => ({ ...s, title: `step ${n}` });
}

describe('report/progress/publisher', () => {
  it('H1 creates exactly one note at start, then only edits it', async () => {
    const { target, scheduler, options } = setup();
    const publisher = await ProgressPublisher.start(options, started());
    expect(target.creates).to.equal(1);
    publisher.update(detail(1));
    await scheduler.advance(1500);
    publisher.update(detail(2));
    await scheduler.advance(1500);
    await publisher.finish({ state: 'complete', summary: 'ok' });
    expect(target.creates).to.equal(1);
    expect(target.edits).to.equal(3);
    expect(new Set(target.calls.map((c) => c.id))).to.deep.equal(new Set(['1']));
  });

  it('H1 100 rapid updates over 3 s produce at most 4 edits, the last one current', async () => {
    const { target, scheduler, options } = setup();
    const publisher = await ProgressPublisher.start(options, started());
    for (let i = 1; i <= 100; i += 1) {
      publisher.update(detail(i));
      await scheduler.advance(30);
    }
    await scheduler.advance(5000);
    expect(target.creates).to.equal(1);
    expect(target.edits).to.be.within(1, 4);
    expect(target.lastBody()).to.include('step 100');
    expect(scheduler.size).to.equal(0);
  });

  it('H1 keeps at least the edit interval between two writes', async () => {
    const { target, scheduler, clock, options } = setup();
    const times: number[] = [];
    const timed = {
      createNote: async (body: string) => {
        times.push(clock.now());
        return target.createNote(body);
      },
      editNote: async (id: string, body: string) => {
        times.push(clock.now());
        return target.editNote(id, body);
      },
    };
    const publisher = await ProgressPublisher.start({ ...options, target: timed }, started());
    for (let i = 1; i <= 50; i += 1) {
      publisher.update(detail(i));
      await scheduler.advance(70);
    }
    await publisher.flush();
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    expect(gaps.every((g) => g >= 1000)).to.equal(true, `gaps ${gaps.join(',')}`);
  });

  it('H0 no edit when the rendered text is unchanged', async () => {
    const { target, scheduler, options } = setup();
    const publisher = await ProgressPublisher.start(options, started());
    publisher.update((s) => ({ ...s }));
    publisher.update((s) => setPhaseDetail(s, 'pre_planning', undefined));
    await scheduler.advance(3000);
    expect(target.edits).to.equal(0);
    expect(publisher.stats.unchanged).to.be.greaterThan(0);
  });

  it('H1 a failing run leaves its final state, even with an edit pending', async () => {
    const { target, scheduler, options } = setup();
    const publisher = await ProgressPublisher.start(options, started());
    const run = async () => {
      publisher.update((s) =>
        setPlan(startPhase(s, 'planning', s.startedAt + 10), PLAN, s.startedAt + 20),
      );
      publisher.update((s) => updateItem(s, 'task_1', 'running'));
      throw new Error('model gave up');
    };
    try {
      await run();
    } catch (error) {
      await publisher.finish({ state: 'failed', summary: (error as Error).message });
    }
    await scheduler.advance(5000);
    const body = target.lastBody();
    expect(parseMarker(body)?.state).to.equal('failed');
    expect(body).to.include('### ❌ Failed');
    expect(body).to.include('model gave up');
    expect(body).to.include('- [ ] Read the HTTP client and its tests — *stopped here*');
  });

  it('H1 finish is idempotent and later updates are ignored', async () => {
    const { target, scheduler, options } = setup();
    const publisher = await ProgressPublisher.start(options, started());
    const first = publisher.finish({ state: 'complete', summary: 'ok' });
    const second = publisher.finish({ state: 'failed', summary: 'late' });
    expect(await first).to.equal(true);
    expect(await second).to.equal(true);
    publisher.update(detail(9));
    await scheduler.advance(5000);
    expect(parseMarker(target.lastBody())?.state).to.equal('complete');
    expect(target.edits).to.equal(1);
  });

  it('H0 a failed write is retried later and the final state still lands', async () => {
    const memory = createMemoryLogger({ redactor: new Redactor(), format: 'json' });
    const { target, scheduler, options } = setup({ logger: memory.logger });
    const publisher = await ProgressPublisher.start(options, started());
    target.failNext(2);
    publisher.update(detail(1));
    await scheduler.advance(1000);
    expect(publisher.stats.failures).to.equal(1);
    await scheduler.advance(2000);
    expect(publisher.stats.failures).to.equal(2);
    await scheduler.advance(4000);
    expect(target.lastBody()).to.include('step 1');
    expect(memory.lines.some((l) => l.includes('progress note write failed'))).to.equal(true);
    target.failNext(1);
    expect(await publisher.finish({ state: 'complete', summary: 'ok' })).to.equal(true);
    expect(parseMarker(target.lastBody())?.state).to.equal('complete');
  });

  it('H1 a note that could not be created at start is created later', async () => {
    const { target, scheduler, options } = setup();
    target.failNext(1);
    const publisher = await ProgressPublisher.start(options, started());
    expect(publisher.noteId).to.equal(undefined);
    await scheduler.advance(2500);
    expect(publisher.noteId).to.equal('1');
    expect(target.creates).to.equal(1);
  });

  it('M3 L1 bodies are redacted and escaped before they are posted', async () => {
    const { target, redactor, options } = setup();
    redactor.add('glpat-SECRETSECRET123');
    const publisher = await ProgressPublisher.start(options, started());
    await publisher.finish({
      state: 'complete',
      summary: 'Used glpat-SECRETSECRET123 to push.\n/merge\n/approve',
    });
    const body = target.lastBody();
    expect(body).to.not.include('glpat-SECRETSECRET123');
    expect(body).to.include('[MASKED]');
    expect(body).to.include('\\/merge  \n\\/approve');
    expect(hasUnescapedQuickAction(body)).to.equal(false);
  });

  it('H0 bodies are truncated below the configured size', async () => {
    const { target, options } = setup({ maxChars: 2000 });
    const publisher = await ProgressPublisher.start(options, started());
    await publisher.finish({ state: 'complete', summary: 'x'.repeat(10_000) });
    expect(target.lastBody().length).to.be.at.most(2000);
    expect(target.lastBody()).to.include('**Truncated**');
  });

  it('flush writes pending changes at once when the interval has passed', async () => {
    const { target, clock, options } = setup();
    const publisher = await ProgressPublisher.start(options, started());
    clock.advance(5000);
    publisher.update(detail(3));
    expect(await publisher.flush()).to.equal(true);
    await settle();
    expect(target.lastBody()).to.include('step 3');
    expect(target.edits).to.equal(1);
  });
});
