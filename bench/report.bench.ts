// Cost of the reporting path: rendering a large progress note, preparing a
// note body (redact → escape → truncate) of 2 MB, and how many writes the
// throttled publisher makes for a burst of updates (fake clock, no waiting).
import { performance } from 'node:perf_hooks';
import { createSilentLogger } from '../src/log/logger.ts';
import { Redactor } from '../src/log/redact.ts';
import { prepareNoteBody } from '../src/report/note-body.ts';
import { ProgressPublisher } from '../src/report/progress/publisher.ts';
import { renderProgressNote } from '../src/report/progress/render.ts';
import {
  initialProgress,
  revisePlan,
  setPhaseDetail,
  setPlan,
  startPhase,
  updateItem,
} from '../src/core/progress/updates.ts';
import type { ChecklistItem, ProgressState } from '../src/core/progress/model.ts';
import type { Scheduler } from '../src/report/progress/scheduler.ts';
import { FakeClock } from '../src/core/clock.ts';

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function time(runs: number, fn: () => void): number {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    fn();
    samples.push(performance.now() - start);
  }
  return median(samples);
}

function bigState(items: number, revisions: number): ProgressState {
  const plan = (rev: number): ChecklistItem[] =>
    Array.from({ length: items }, (_, i) => ({
      id: `task_${rev}_${i}`,
      description: `Step ${i} of revision ${rev}: change module ${i} and run its tests`,
      status: 'pending',
    }));
  let s = startPhase(
    initialProgress({ taskId: 'bench', title: 'Bench', startedAt: 0 }),
    'execution',
    0,
  );
  s = setPlan(s, plan(0), 0);
  for (let r = 1; r <= revisions; r++) {
    s = updateItem(s, `task_${r - 1}_0`, 'done');
    s = revisePlan(s, {
      change: 'partial_replan',
      reason: `revision ${r}`,
      at: r * 1000,
      items: plan(r),
    });
  }
  return s;
}

const redactor = new Redactor();
redactor.add('glpat-benchmarksecret');
const state = bigState(100, 5);
const body = renderProgressNote(state);
const huge = `${'/merge this line\n'.repeat(60_000)}\`\`\`\n${'/code line\n'.repeat(60_000)}`;

console.log(`report (median, node ${process.version})`);
console.log(
  `  render progress note, 100 items × 6 plans  ${time(50, () => renderProgressNote(state)).toFixed(2)} ms  (${body.length.toLocaleString('en-US')} chars)`,
);
console.log(
  `  prepare body of that note                  ${time(50, () => prepareNoteBody(body, { redactor })).toFixed(2)} ms`,
);
console.log(
  `  prepare body of ${(huge.length / 1e6).toFixed(1)} MB (escape + truncate)    ${time(10, () => prepareNoteBody(huge, { redactor })).toFixed(2)} ms`,
);

// Publisher: 100 updates 30 ms apart with a 1000 ms interval, on a fake clock.
const clock = new FakeClock(0);
const timers: Array<{ at: number; fn: () => void; off: boolean }> = [];
const scheduler: Scheduler = {
  schedule(fn, delayMs) {
    const t = { at: clock.now() + delayMs, fn, off: false };
    timers.push(t);
    return () => {
      t.off = true;
    };
  },
};
async function advance(ms: number): Promise<void> {
  const end = clock.now() + ms;
  for (;;) {
    await new Promise((r) => setImmediate(r));
    const due = timers.filter((t) => !t.off && t.at <= end).sort((a, b) => a.at - b.at)[0];
    if (!due) break;
    due.off = true;
    if (due.at > clock.now()) clock.advance(due.at - clock.now());
    due.fn();
  }
  if (end > clock.now()) clock.advance(end - clock.now());
}
let writes = 0;
const publisher = await ProgressPublisher.start(
  {
    target: {
      createNote: async () => {
        writes++;
        return { id: '1' };
      },
      editNote: async () => {
        writes++;
      },
    },
    redactor,
    logger: createSilentLogger(),
    clock,
    scheduler,
  },
  bigState(10, 0),
);
for (let i = 0; i < 100; i++) {
  publisher.update((s) => setPhaseDetail(s, 'execution', `action ${i}`));
  await advance(30);
}
await publisher.finish({ state: 'complete', summary: 'done' });
console.log(
  `  publisher: 100 updates over 3 s → ${writes} writes (1 create + ${writes - 1} edits)`,
);
