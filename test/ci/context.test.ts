import { expect } from 'chai';
import { parseCiContext, usersToCheck, type CiStep } from '../../src/ci/context.ts';
import { ConfigError, UsageError } from '../../src/errors/errors.ts';

const JOB = {
  CI_API_V4_URL: 'https://gitlab.example.com/api/v4',
  CI_SERVER_URL: 'https://gitlab.example.com',
  CI_PROJECT_ID: '42',
  CI_PROJECT_PATH: 'acme/app',
  CI_PROJECT_DIR: '/builds/acme/app',
  CI_DEFAULT_BRANCH: 'main',
  CI_COMMIT_REF_NAME: 'feature/x',
  CI_PIPELINE_ID: '1001',
  CI_JOB_ID: '7',
  CI_JOB_URL: 'https://gitlab.example.com/acme/app/-/jobs/7',
  CI_PIPELINE_SOURCE: 'trigger',
  GITLAB_USER_ID: '3',
  GITLAB_USER_LOGIN: 'bot-owner',
};

function env(extra: Record<string, string>): Record<string, string> {
  return { ...JOB, ...extra };
}

describe('ci/context', () => {
  const triggers: {
    name: string;
    vars: Record<string, string>;
    expected: Record<string, unknown>;
  }[] = [
    {
      name: 'A2 a bridge-triggered pipeline (MR_AGENT_NOTE_ID) is a note request on the MR',
      vars: {
        MR_AGENT_NOTE_ID: '555',
        MR_AGENT_TASK: 'fix the typo',
        MR_AGENT_COMMAND: 'run',
        MR_AGENT_MR_IID: '12',
        MR_AGENT_TRIGGERED_BY: '9',
        MR_AGENT_SOURCE: 'note',
      },
      expected: {
        kind: 'note',
        noteId: 555,
        command: 'run',
        task: 'fix the typo',
        target: { kind: 'merge_request', iid: 12 },
        triggeredBy: 9,
      },
    },
    {
      name: 'A2 `/agent approve` through the bridge carries no task text',
      vars: { MR_AGENT_NOTE_ID: '556', MR_AGENT_COMMAND: 'approve', MR_AGENT_ISSUE_IID: '4' },
      expected: {
        kind: 'note',
        noteId: 556,
        command: 'approve',
        task: '',
        target: { kind: 'issue', iid: 4 },
        triggeredBy: undefined,
      },
    },
    {
      name: 'A4 "Run pipeline" with MR_AGENT_TASK is a manual request',
      vars: { CI_PIPELINE_SOURCE: 'web', MR_AGENT_TASK: 'add retries', MR_AGENT_MR_IID: '12' },
      expected: {
        kind: 'manual',
        source: 'manual',
        task: 'add retries',
        target: { kind: 'merge_request', iid: 12 },
        triggeredBy: undefined,
      },
    },
    {
      name: 'A4 an API run without a target works on the default branch',
      vars: { CI_PIPELINE_SOURCE: 'api', MR_AGENT_TASK: 'update the changelog' },
      expected: {
        kind: 'manual',
        source: 'api',
        task: 'update the changelog',
        target: { kind: 'none' },
        triggeredBy: undefined,
      },
    },
    {
      name: 'A3 TRIGGER_PAYLOAD alone (a comment webhook at the trigger URL) is a payload request',
      vars: { TRIGGER_PAYLOAD: '/builds/acme/app.tmp/TRIGGER_PAYLOAD' },
      expected: { kind: 'payload', payload: '/builds/acme/app.tmp/TRIGGER_PAYLOAD' },
    },
    {
      name: 'A2 the bridge variables win over a TRIGGER_PAYLOAD GitLab also sets for trigger-API calls',
      vars: { TRIGGER_PAYLOAD: '/tmp/p', MR_AGENT_NOTE_ID: '5', MR_AGENT_TASK: 't' },
      expected: { kind: 'note', noteId: 5 },
    },
  ];
  for (const c of triggers) {
    it(c.name, () => {
      const context = parseCiContext(env(c.vars), 'all');

      expect(context.trigger).to.deep.include(c.expected);
    });
  }

  it('reads the SPEC contract variables into the context', () => {
    const context = parseCiContext(
      env({ MR_AGENT_TASK: 'x', CI_API_V4_URL: 'http://127.0.0.1:8080/api/v4/' }),
      'plan',
    );

    expect(context).to.deep.include({
      step: 'plan',
      projectDir: '/builds/acme/app',
      ref: 'feature/x',
      pipeline: { id: 1001, source: 'trigger' },
      job: { id: 7, url: 'https://gitlab.example.com/acme/app/-/jobs/7' },
      pipelineUser: { id: 3, login: 'bot-owner' },
    });
    expect(context.gitlab).to.deep.equal({
      apiUrl: 'http://127.0.0.1:8080/api/v4',
      serverUrl: 'https://gitlab.example.com',
      projectId: 42,
      projectPath: 'acme/app',
      defaultBranch: 'main',
    });
  });

  it("O4 reads the job's timeout and start and the pipeline's creation, as GitLab gives them; unreadable ones count as unknown, not as an error", () => {
    const context = parseCiContext(
      env({
        MR_AGENT_TASK: 'x',
        CI_JOB_TIMEOUT: '3600',
        CI_JOB_STARTED_AT: '2022-01-31T16:47:55Z',
        CI_PIPELINE_CREATED_AT: '2022-01-31T16:47:50Z',
      }),
      'all',
    );
    expect(context.job).to.include({
      timeoutSeconds: 3600,
      startedAt: Date.parse('2022-01-31T16:47:55Z'),
    });
    expect(context.pipeline.createdAt).to.equal(Date.parse('2022-01-31T16:47:50Z'));
    const odd = parseCiContext(
      env({ MR_AGENT_TASK: 'x', CI_JOB_TIMEOUT: '1h', CI_JOB_STARTED_AT: 'yesterday' }),
      'all',
    );
    expect(odd.job).to.not.have.any.keys('timeoutSeconds', 'startedAt');
  });

  it('lists every missing or malformed variable at once, naming each', () => {
    const broken = {
      ...JOB,
      CI_PROJECT_ID: 'abc',
      CI_API_V4_URL: 'ftp://x',
      MR_AGENT_MR_IID: '-1',
    };
    delete (broken as Record<string, string>).CI_JOB_ID;

    let error: unknown;
    try {
      parseCiContext({ ...broken, MR_AGENT_TASK: 't' }, 'all');
    } catch (e) {
      error = e;
    }

    expect(error).to.be.instanceOf(ConfigError);
    expect((error as ConfigError).problems).to.have.members([
      'CI_API_V4_URL: expected an http(s) URL, got "ftp://x"',
      'CI_PROJECT_ID: expected a positive whole number, got "abc"',
      'CI_JOB_ID: expected a positive whole number, it is not set',
      'MR_AGENT_MR_IID: expected a positive whole number, got "-1"',
    ]);
  });

  const refusedSources: [string, CiStep][] = [
    ['push', 'all'],
    ['merge_request_event', 'plan'],
    ['schedule', 'all'],
    ['parent_pipeline', 'plan'],
  ];
  for (const [source, step] of refusedSources) {
    it(`B4 refuses to act in a "${source}" pipeline (step ${step}) with exit code 2`, () => {
      expect(() =>
        parseCiContext(env({ CI_PIPELINE_SOURCE: source, MR_AGENT_TASK: 't' }), step),
      ).to.throw(UsageError, `not in a "${source}" pipeline`);
    });
  }

  it('B2 the run step of the child pipeline accepts parent_pipeline and needs no request variables', () => {
    const context = parseCiContext(env({ CI_PIPELINE_SOURCE: 'parent_pipeline' }), 'run');

    expect(context.trigger).to.deep.equal({ kind: 'none' });
  });

  it('a plan or all step without any request says what to set', () => {
    expect(() => parseCiContext(env({ MR_AGENT_TASK: '   ' }), 'all')).to.throw(
      UsageError,
      'no request for the agent',
    );
  });

  it('M4 re-checks both the commenter and the pipeline user', () => {
    const viaBridge = parseCiContext(
      env({ MR_AGENT_NOTE_ID: '1', MR_AGENT_TRIGGERED_BY: '9' }),
      'all',
    );
    const manual = parseCiContext(env({ CI_PIPELINE_SOURCE: 'web', MR_AGENT_TASK: 't' }), 'all');

    expect(usersToCheck(viaBridge)).to.deep.equal([9, 3]);
    expect(usersToCheck(manual)).to.deep.equal([3]);
  });
});
