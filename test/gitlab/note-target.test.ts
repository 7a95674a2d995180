import { expect } from 'chai';
import { ExternalServiceError } from '../../src/errors/errors.ts';
import { GitLabNoteTarget } from '../../src/gitlab/note-target.ts';
import { startWorld, type World } from './world.ts';

const NOTES = /^\/projects\/\d+\/merge_requests\/\d+\/notes$/;

/**
 * H1: one progress note per run. A POST whose answer is lost may still have
 * written the note; the note target looks before giving up, so the
 * publisher's later retry does not post a second one.
 */
describe('gitlab/note-target: a note whose answer was lost (H1, H0)', () => {
  let w: World;
  beforeEach(async () => {
    // long enough for a loaded machine: the checks after a lost answer must not time out themselves
    w = await startWorld({ timeoutMs: 1000 });
  });
  afterEach(() => w.close());

  const target = () =>
    new GitLabNoteTarget(w.gitlab, w.s.project.id, { type: 'merge_request', iid: 1 });
  const withBody = (body: string) => w.standIn.model.notes.filter((n) => n.body === body);

  it('H1 GitLab wrote the note but its answer never came: the written note is returned, none is posted twice', async () => {
    w.standIn.faults.add({ method: 'POST', path: NOTES, hang: true, afterHandling: true });

    const created = await target().createNote('🤖 progress (lost answer)');

    const written = withBody('🤖 progress (lost answer)');
    expect(written).to.have.length(1);
    expect(created.id).to.equal(String(written[0]!.id));
  });

  it('H0 a POST that timed out without writing anything is looked for, then sent again once (issue 18)', async () => {
    w.standIn.faults.add({ method: 'POST', path: NOTES, hang: true });

    const created = await target().createNote('written once');

    const written = withBody('written once');
    expect(written).to.have.length(1);
    expect(created.id).to.equal(String(written[0]!.id));
    const calls = w.standIn.requests.entries
      .filter((r) => NOTES.test(r.path.replace(/^\/api\/v4/, '')))
      .map((r) => `${r.method} ${r.status}`);
    expect(calls).to.deep.equal(['POST 0', 'GET 200', 'POST 201']);
  });

  it('H0 a POST that never lands fails in the end with the timeout in the message, never written', async () => {
    w.standIn.faults.add({ method: 'POST', path: NOTES, hang: true, times: Infinity });

    const error = await target()
      .createNote('never written')
      .catch((e: unknown) => e);

    expect(error).to.be.instanceOf(ExternalServiceError);
    expect((error as Error).message).to.contain('no answer within 1000 ms');
    expect(withBody('never written')).to.have.length(0);
  });

  it('H0 a refused POST (403) is passed on without looking for the note', async () => {
    w.standIn.faults.add({ method: 'POST', path: NOTES, status: 403 });

    const error = await target()
      .createNote('refused')
      .catch((e: unknown) => e);

    expect((error as ExternalServiceError).status).to.equal(403);
    const lookups = w.standIn.requests.entries.filter(
      (r) => r.method === 'GET' && NOTES.test(r.path.replace(/^\/api\/v4/, '')),
    );
    expect(lookups).to.have.length(0);
  });
});
