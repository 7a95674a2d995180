import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseCiContext } from '../../src/ci/context.ts';
import { jobServices } from '../../src/ci/services.ts';
import { createGitLabClient } from '../../src/gitlab/gitbeaker-adapter.ts';

const SECRET = 'glpat-named-variable-secret-1234';

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
  MR_AGENT_TASK: 'fix the typo',
  MR_AGENT_GITLAB_TOKEN_VAR: 'BOT_TOKEN',
  BOT_TOKEN: SECRET,
  MR_AGENT_LOG_FORMAT: 'text',
};

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The `src/` files (relative paths) whose code calls `name(`. */
function callSites(name: string): string[] {
  const files = readdirSync(path.join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `src/${f}`);
  const call = new RegExp(`(?<!function |\\.)\\b${name}\\)?\\(`);
  return files.filter((f) => call.test(readFileSync(path.join(ROOT, f), 'utf8'))).sort();
}

describe('ci/services: one job builds its services once', () => {
  it('A3 the named token variable is resolved once: configuration, GitLab client and log redaction all use it', async () => {
    let stderr = '';
    const tokens: string[] = [];
    const services = jobServices(
      parseCiContext(JOB, 'all'),
      { env: JOB, stdout: { write: () => true }, stderr: { write: (t) => (stderr += t) } },
      {
        createGitLab: (options) => {
          tokens.push(options.token);
          return createGitLabClient(options);
        },
      },
    );

    expect(services.env.MR_AGENT_GITLAB_TOKEN).to.equal(SECRET);
    expect(services.config.base.gitlab.token).to.equal(SECRET);
    const [first, second] = await Promise.all([services.gitlab(), services.gitlab()]);
    expect(first).to.equal(second);
    expect(tokens).to.deep.equal([SECRET]);
    const logging = await services.logging();
    expect(await services.logging()).to.equal(logging);
    logging.logger.info(`token is ${SECRET}`);
    // the job's lines wait for its first progress note (or its end), then are written
    await services.flushLogs();
    expect(stderr).to.contain('token is').and.not.contain(SECRET);
  });

  it('each process kind builds its GitLab client, logger and secrets in one place', () => {
    expect(callSites('withNamedSecrets')).to.deep.equal(['src/ci/services.ts']);
    expect(callSites('createGitLabClient')).to.deep.equal(
      [
        // the bridge (`mr-agent serve`)
        'src/commands/gitlab-bridge.ts',
        // the job (`mr-agent ci`)
        'src/ci/services.ts',
        // the demo's bridge and its developer, who comments
        'src/demo/trigger.ts',
      ].sort(),
    );
    expect(callSites('createLogger')).to.deep.equal(
      [
        'src/cli/commands/run-services.ts',
        'src/cli/commands/serve.ts',
        'src/demo/run-demo.ts',
        // the lazy logger makes the one logger when it first writes
        'src/log/lazy-logger.ts',
        'src/log/logger.ts',
      ].sort(),
    );
    // `mr-agent setup`, a process of its own, with the lazy logger
    expect(callSites('createLazyLogger')).to.deep.equal(['src/cli/commands/setup.ts']);
    // `mr-agent ci`: its lines wait for the first progress note
    expect(callSites('createHeldLogger')).to.deep.equal(['src/ci/services.ts']);
  });
});
