import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { createSilentLogger } from '../../src/log/logger.ts';
import { Redactor } from '../../src/log/redact.ts';
import { LocalNoteTarget } from '../../src/report/local-note-target.ts';
import { ProgressPublisher } from '../../src/report/progress/publisher.ts';
import { updateItem } from '../../src/core/progress/updates.ts';
import { renderProgressNote } from '../../src/report/progress/render.ts';
import { terminalLines } from '../../src/report/terminal-render.ts';
import { FakeClock } from '../../src/core/clock.ts';
import { ManualScheduler } from '../support/manual-scheduler.ts';
import { executing, revisedTwice } from './progress/scenario.ts';

describe('report/local-note-target', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'mr-agent-notes-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('A5 writes notes to .mr-agent/notes/<kind>-<n>.md and shows them on the terminal', async () => {
    const out: string[] = [];
    const target = new LocalNoteTarget({ stateDir: dir, write: (t) => out.push(t) });
    const progress = await target.createNote(
      '<!-- mr-agent:progress task=t -->\n## Hello\n\\/merge',
    );
    const replan = await target.createNote('<!-- mr-agent:replan task=t -->\n## 🔄 Plan');
    const second = await target.createNote('<!-- mr-agent:replan task=t -->\n## again');
    expect([progress.id, replan.id, second.id]).to.deep.equal([
      'progress-1',
      'replan-1',
      'replan-2',
    ]);
    expect(await readFile(path.join(dir, 'notes/replan-2.md'), 'utf8')).to.include('## again');
    expect(out[0]).to.include('● note progress-1');
    expect(out[0]).to.include('\nHello\n/merge\n');
    expect(out[0]).to.not.include('mr-agent:progress');
    expect(out.join('')).to.not.include('\u001b[');
  });

  it('A5 an edit rewrites the file and prints only the changed lines', async () => {
    const out: string[] = [];
    const target = new LocalNoteTarget({ stateDir: dir, write: (t) => out.push(t) });
    const { id } = await target.createNote(renderProgressNote(executing()));
    await target.editNote(id, renderProgressNote(updateItem(executing(), 'task_2', 'done')));
    expect(await readFile(target.fileFor(id), 'utf8')).to.include(
      '- [x] Add retry with exponential backoff',
    );
    expect(out[1]).to.equal(
      '↻ progress-1\n  Now: Execution · 2 of 3 steps done · Nothing pushed yet · started 10:00 UTC · [View job #1234](https://gitlab.example.com/group/app/-/jobs/1234)\n  ✔ Add retry with exponential backoff\n',
    );
  });

  it('continues the numbering of notes left by an earlier run', async () => {
    await mkdir(path.join(dir, 'notes'), { recursive: true });
    await writeFile(path.join(dir, 'notes/progress-3.md'), 'old');
    const target = new LocalNoteTarget({ stateDir: dir, write: () => undefined });
    const [a, b] = await Promise.all([
      target.createNote('<!-- mr-agent:progress -->\nx'),
      target.createNote('<!-- mr-agent:progress -->\ny'),
    ]);
    expect([a.id, b.id].sort()).to.deep.equal(['progress-4', 'progress-5']);
  });

  it('refuses to edit a note it does not have', async () => {
    const target = new LocalNoteTarget({ stateDir: dir, write: () => undefined });
    let error: unknown;
    try {
      await target.editNote('progress-9', 'x');
    } catch (e) {
      error = e;
    }
    expect(String(error)).to.include('no local note progress-9');
  });

  it('A5 works under the publisher (create once, then edits)', async () => {
    const out: string[] = [];
    const clock = new FakeClock();
    const scheduler = new ManualScheduler(clock);
    const target = new LocalNoteTarget({ stateDir: dir, write: (t) => out.push(t) });
    const publisher = await ProgressPublisher.start(
      { target, redactor: new Redactor(), logger: createSilentLogger(), clock, scheduler },
      executing(),
    );
    publisher.update((s) => updateItem(s, 'task_2', 'done'));
    await scheduler.advance(2000);
    await publisher.finish({ state: 'complete', summary: 'All good.' });
    const body = await readFile(path.join(dir, 'notes/progress-1.md'), 'utf8');
    expect(body).to.include('state=complete');
    expect(out.filter((t) => t.includes('● note'))).to.have.length(1);
  });

  it('renders a compact terminal view: no marker, Mermaid or folded history; colour only on a TTY', () => {
    const plain = terminalLines(renderProgressNote(revisedTwice()));
    const text = plain.join('\n');
    expect(text).to.not.include('mermaid');
    expect(text).to.not.include('<!--');
    expect(text).to.not.include('Original plan');
    expect(text).to.include('▸ Run details · 5 phases · python environment');
    expect(text).to.include('— ⏳ in progress');
    expect(text).to.include('Now: Execution · 2 of 4 steps done');
    expect(text).to.include('✔ Read the HTTP client and its tests');
    expect(text).to.not.include('\u001b[');
    const colored = terminalLines(renderProgressNote(revisedTwice()), true).join('\n');
    expect(colored).to.include('\u001b[1m');
  });
});
