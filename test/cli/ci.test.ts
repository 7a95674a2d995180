import { expect } from 'chai';
import os from 'node:os';
import { runCli } from './helpers.ts';

const JOB = {
  CI_API_V4_URL: 'https://gitlab.example.com/api/v4',
  CI_PROJECT_ID: '42',
  CI_PROJECT_DIR: os.tmpdir(),
  CI_DEFAULT_BRANCH: 'main',
  CI_PIPELINE_ID: '1001',
  CI_JOB_ID: '7',
  CI_PIPELINE_SOURCE: 'trigger',
};

describe('cli/ci', () => {
  it('outside a CI job, names every missing variable and exits 2', async () => {
    const result = await runCli(['ci'], { env: {} });

    expect(result.code).to.equal(2);
    expect(result.stderr).to.contain('not a usable GitLab CI job environment');
    expect(result.stderr).to.contain(
      'CI_PROJECT_ID: expected a positive whole number, it is not set',
    );
  });

  it('B4 refuses a push pipeline with exit code 2', async () => {
    const result = await runCli(['ci'], {
      env: { ...JOB, CI_PIPELINE_SOURCE: 'push', MR_AGENT_TASK: 'x' },
    });

    expect(result.code).to.equal(2);
    expect(result.stderr).to.contain('not in a "push" pipeline');
  });

  it('rejects an unknown --step', async () => {
    const result = await runCli(['ci', '--step', 'deploy'], { env: JOB });

    expect(result.code).to.equal(2);
    expect(result.stderr).to.contain('Allowed choices are all, plan, run');
  });

  it("B2 the run step without the plan job's hand-off says so and exits 2", async () => {
    const result = await runCli(['ci', '--step', 'run'], {
      env: {
        ...JOB,
        CI_PIPELINE_SOURCE: 'parent_pipeline',
        MR_AGENT_GITLAB_TOKEN: 'glpat-test-token',
      },
    });

    expect(result.code).to.equal(2);
    expect(result.stderr).to.contain('.mr-agent/ci-handoff.json: the plan job left no hand-off');
  });
});
