import { expect } from 'chai';
import { parseCiContext } from '../../src/ci/context.ts';
import { requestFromTrigger, type CiRequest } from '../../src/ci/request.ts';
import { withRequester } from '../../src/ci/requester.ts';
import type { Note, Noteable } from '../../src/core/gitlab-port.ts';

const JOB = {
  CI_API_V4_URL: 'https://gitlab.example.com/api/v4',
  CI_PROJECT_ID: '42',
  CI_PROJECT_DIR: '/builds/acme/app',
  CI_DEFAULT_BRANCH: 'main',
  CI_PIPELINE_ID: '1001',
  CI_JOB_ID: '7',
  GITLAB_USER_ID: '3',
  // the pipeline's user: for a triggered pipeline, the trigger token's owner
  GITLAB_USER_LOGIN: 'token-owner',
};

function note(id: number, username: string): Note {
  const author = { id: id + 100, username, name: username, bot: false };
  const at = '2026-01-01T00:00:00Z';
  return { id, body: '/agent fix it', author, system: false, createdAt: at, updatedAt: at };
}

/** The job's one listing of the merge request's notes. */
function reads(notes: Note[]) {
  const asked: Noteable[] = [];
  return {
    asked,
    notes: async (on: Noteable) => {
      asked.push(on);
      return notes;
    },
  };
}

function requestOf(vars: Record<string, string>): {
  request: CiRequest;
  context: ReturnType<typeof parseCiContext>;
} {
  const context = parseCiContext({ ...JOB, ...vars }, 'all');
  const trigger = context.trigger;
  if (trigger.kind !== 'note' && trigger.kind !== 'manual') throw new Error('not a request');
  return { request: requestFromTrigger(trigger), context };
}

describe('ci/requester (#24: the ❓ note @mentions who asked)', () => {
  it('#24 a bridge-triggered run mentions the comment’s author, not GITLAB_USER_LOGIN (the trigger token’s owner)', async () => {
    const { request, context } = requestOf({
      CI_PIPELINE_SOURCE: 'trigger',
      MR_AGENT_NOTE_ID: '555',
      MR_AGENT_TASK: 'fix the typo',
      MR_AGENT_MR_IID: '12',
      // the bridge passes the commenter's id (the author of note 555 is user 655)
      MR_AGENT_TRIGGERED_BY: '655',
    });
    const listing = reads([note(554, 'someone'), note(555, 'dana')]);
    const withName = await withRequester(request, context, listing);
    expect(withName.username).to.equal('dana');
    expect(listing.asked).to.deep.equal([{ type: 'merge_request', iid: 12 }]);
  });

  it('#24 a comment whose author is not the user the variables name mentions nobody (issue 19: ids are checked)', async () => {
    const { request, context } = requestOf({
      CI_PIPELINE_SOURCE: 'trigger',
      MR_AGENT_NOTE_ID: '555',
      MR_AGENT_TASK: 'fix the typo',
      MR_AGENT_MR_IID: '12',
      MR_AGENT_TRIGGERED_BY: '9',
    });
    const withName = await withRequester(request, context, reads([note(555, 'dana')]));
    expect(withName.username).to.equal(undefined);
  });

  it('#24 a name already known (the TRIGGER_PAYLOAD event’s user, the plan job’s hand-off) is kept without a read', async () => {
    const { request, context } = requestOf({
      CI_PIPELINE_SOURCE: 'trigger',
      MR_AGENT_NOTE_ID: '555',
      MR_AGENT_MR_IID: '12',
    });
    const listing = reads([note(555, 'dana')]);
    const kept = await withRequester({ ...request, username: 'erin' }, context, listing);
    expect(kept.username).to.equal('erin');
    expect(listing.asked).to.have.length(0);
  });

  it('#24 "Run pipeline" (source web) mentions the pipeline’s user; a triggered manual run mentions nobody', async () => {
    const web = requestOf({
      CI_PIPELINE_SOURCE: 'web',
      MR_AGENT_TASK: 'fix',
      MR_AGENT_MR_IID: '12',
    });
    expect((await withRequester(web.request, web.context, reads([]))).username).to.equal(
      'token-owner',
    );
    const triggered = requestOf({
      CI_PIPELINE_SOURCE: 'trigger',
      MR_AGENT_TASK: 'fix',
      MR_AGENT_MR_IID: '12',
    });
    const none = await withRequester(triggered.request, triggered.context, reads([]));
    expect(none.username).to.equal(undefined);
  });

  it('#24 a listing that fails leaves the request without a name (the mention is a courtesy)', async () => {
    const { request, context } = requestOf({
      CI_PIPELINE_SOURCE: 'trigger',
      MR_AGENT_NOTE_ID: '555',
      MR_AGENT_MR_IID: '12',
    });
    const failing = { notes: async () => Promise.reject(new Error('GitLab answered 502')) };
    expect((await withRequester(request, context, failing)).username).to.equal(undefined);
  });
});
