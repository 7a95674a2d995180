/**
 * The progress note end to end: the report layer's publisher writing through
 * GitLabNoteTarget and @gitbeaker/rest to the GitLab stand-in over HTTP.
 */
import { expect } from 'chai';
import { execa } from 'execa';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { GitLabNoteTarget } from '../../src/gitlab/note-target.ts';
import type { Noteable } from '../../src/core/gitlab-port.ts';
import { createMemoryLogger } from '../../src/log/logger.ts';
import { Redactor } from '../../src/log/redact.ts';
import { hasUnescapedQuickAction } from '../../src/report/markdown.ts';
import { parseMarker } from '../../src/report/marker.ts';
import { ProgressPublisher } from '../../src/report/progress/publisher.ts';
import { initialProgress, setPhaseDetail, startPhase } from '../../src/core/progress/updates.ts';
import { FakeClock } from '../../src/core/clock.ts';
import { ManualScheduler } from '../support/manual-scheduler.ts';
import { startWorld, type World } from './world.ts';

const CHILD = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  'fixtures/gitlab-sigterm-child.ts',
);
const NOTES = '/projects/:id/merge_requests/:iid/notes';
const NOTE = '/projects/:id/merge_requests/:iid/notes/:note_id';

describe('gitlab progress note end to end (H1, M3, M6 through @gitbeaker/rest)', () => {
  let w: World;
  const on: Noteable = { type: 'merge_request', iid: 1 };
  beforeEach(async () => {
    w = await startWorld();
  });
  afterEach(() => w.close());

  function publisherSetup() {
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const scheduler = new ManualScheduler(clock);
    const redactor = new Redactor();
    redactor.add(w.s.botToken.value);
    const memory = createMemoryLogger({ redactor, level: 'debug' });
    const target = new GitLabNoteTarget(w.gitlab, w.s.project.id, on);
    const initial = startPhase(
      initialProgress({
        taskId: 'e2e',
        title: 'Add farewell',
        startedAt: clock.now(),
        jobId: '99',
      }),
      'execution',
      clock.now(),
    );
    const options = {
      target,
      redactor,
      logger: memory.logger,
      clock,
      scheduler,
      editIntervalMs: 1000,
    };
    return { scheduler, options, initial, lines: memory.lines };
  }

  const botNotes = async () =>
    (await w.gitlab.listNotes(w.s.project.id, on)).filter((n) => n.author.id === w.s.bot.id);

  it('H1 creates one note, then only edits it: 100 rapid updates over 3 s → at most 4 edits; a failed run leaves its final state', async () => {
    const { scheduler, options, initial } = publisherSetup();
    const publisher = await ProgressPublisher.start(options, initial);
    for (let i = 1; i <= 100; i += 1) {
      publisher.update((s) => setPhaseDetail(s, 'execution', `action ${i}`));
      await scheduler.advance(30);
    }
    await publisher.flush();

    expect(w.standIn.requests.count({ method: 'POST', route: NOTES })).to.equal(1);
    expect(w.standIn.requests.count({ method: 'PUT', route: NOTE })).to.be.within(1, 4);
    expect((await botNotes())[0]!.body).to.contain('action 100');

    await publisher.finish({ state: 'failed', summary: 'The tests kept failing.' });
    const notes = await botNotes();
    expect(notes).to.have.length(1);
    expect(parseMarker(notes[0]!.body)).to.include({
      kind: 'progress',
      state: 'failed',
      job: '99',
    });
    expect(w.standIn.requests.count({ method: 'POST', route: NOTES })).to.equal(1);
  });

  it('M3 L1 LLM text with /merge or /approve lines arrives escaped; the token appears in no note and no log', async () => {
    const { scheduler, options, initial, lines } = publisherSetup();
    const publisher = await ProgressPublisher.start(options, initial);
    const llmText = `Done.\n/merge\n/approve\nused token ${w.s.botToken.value}`;
    publisher.update((s) => setPhaseDetail(s, 'execution', llmText));
    await scheduler.advance(2000);
    await publisher.finish({ state: 'complete', summary: '/close\nall good' });

    const body = (await botNotes())[0]!.body;
    expect(hasUnescapedQuickAction(body)).to.equal(false);
    expect(body).not.to.contain(w.s.botToken.value);
    expect(w.standIn.model.quickActions).to.deep.equal([]);
    expect(lines.join('\n')).not.to.contain(w.s.botToken.value);
  });

  it('M6 a run killed with SIGTERM (child process) leaves its final state in the GitLab note', async () => {
    const child = execa(process.execPath, ['--import', 'tsx', CHILD], {
      reject: false,
      stdin: 'ignore',
      env: {
        GL_URL: w.standIn.url,
        GL_TOKEN: w.s.botToken.value,
        GL_PROJECT: String(w.s.project.id),
        GL_MR: '1',
      },
    });
    let ready = false;
    child.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) ready = true;
    });
    const end = Date.now() + 15_000;
    while (!(ready && w.standIn.requests.count({ method: 'PUT', route: NOTE }) >= 2)) {
      if (Date.now() > end) throw new Error('the child never got going');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    child.kill('SIGTERM');
    const result = await child;

    expect(result.exitCode).to.equal(143);
    const notes = await botNotes();
    expect(notes).to.have.length(1);
    expect(parseMarker(notes[0]!.body)).to.include({
      kind: 'progress',
      state: 'cancelled',
      job: '88',
    });
    expect(notes[0]!.body).to.contain('The job was cancelled (SIGTERM).');
  });
});
