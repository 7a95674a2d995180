import { expect } from 'chai';
import type { CommandRequest, CommandResult, Shell } from '../../src/core/shell-port.ts';
import { ExecaShell } from '../../src/shell/execa-shell.ts';
import { makeTempRepo } from '../support/temp-repo.ts';
import { toolContext } from '../support/tool-context.ts';
import { call } from './call.ts';

describe('tools: search_code', () => {
  let repo: Awaited<ReturnType<typeof makeTempRepo>>;
  beforeEach(async () => {
    repo = await makeTempRepo({
      'src/a.ts': 'const retries = 3;\nfunction fetchWithRetry() {}\n',
      'src/b.py': 'RETRIES = 5\n',
      'node_modules/x/index.js': 'const retries = 99;\n',
    });
  });
  afterEach(() => repo.cleanup());

  it('finds a string case-insensitively with path and line, skipping dependency folders', async () => {
    const ctx = await toolContext(repo.dir);
    const out = await call(ctx, 'search_code', { query: 'retries' });
    expect(out.output.split('\n')).to.deep.equal([
      'src/a.ts:1: const retries = 3;',
      'src/b.py:1: RETRIES = 5',
    ]);
  });

  it('supports regular expressions, a sub-folder and case sensitivity', async () => {
    const ctx = await toolContext(repo.dir);
    const out = await call(ctx, 'search_code', {
      query: 'fetch\\w+',
      regex: true,
      path: 'src',
      case_sensitive: true,
    });
    expect(out.output).to.equal('src/a.ts:2: function fetchWithRetry() {}');
    const bad = await call(ctx, 'search_code', { query: '(', regex: true });
    expect(bad.output).to.match(/invalid regular expression/);
    const none = await call(ctx, 'search_code', { query: 'zzz' });
    expect(none.output).to.equal('no matches for "zzz"');
  });
});

describe('tools: run_command (M1)', () => {
  let repo: Awaited<ReturnType<typeof makeTempRepo>>;
  beforeEach(async () => {
    repo = await makeTempRepo({ 'sub/file.txt': 'x' });
  });
  afterEach(() => repo.cleanup());

  it('M1 `run_command "env"` shows no token or key', async () => {
    const hostEnv = {
      PATH: process.env.PATH,
      HOME: '/home/test',
      MR_AGENT_GITLAB_TOKEN: 'glpat-very-secret-token',
      OPENAI_API_KEY: 'sk-very-secret-key',
      CI_JOB_TOKEN: 'job-token-value-123',
      MY_DEPLOY_PASSWORD: 'hunter2hunter2',
      AWS_SECRET_ACCESS_KEY: 'aws-secret-value',
      TRIGGER_PAYLOAD: '/tmp/payload.json',
    };
    const ctx = await toolContext(repo.dir, { hostEnv });
    const out = await call(ctx, 'run_command', { command: 'env' });
    expect(out.ok, out.output).to.equal(true);
    for (const secret of [
      'glpat-very-secret-token',
      'sk-very-secret-key',
      'job-token-value-123',
      'hunter2hunter2',
      'aws-secret-value',
      'TOKEN',
      'API_KEY',
      'TRIGGER_PAYLOAD',
    ])
      expect(out.output).not.to.contain(secret);
    expect(out.output).to.contain('HOME=/home/test');
  });

  it('runs in a sub-folder and reports a failing exit code as an error for the model', async () => {
    const ctx = await toolContext(repo.dir);
    const ok = await call(ctx, 'run_command', { command: 'ls', cwd: 'sub' });
    expect(ok.output).to.match(/^exit code: 0, \d+ ms\nfile\.txt$/);
    const failed = await call(ctx, 'run_command', { command: 'echo oops >&2; exit 3' });
    expect(failed.ok).to.equal(false);
    expect(failed.output)
      .to.match(/^Error: the command failed — exit code: 3/)
      .and.contain('oops');
  });

  it('stops a command at the timeout and says so', async () => {
    const ctx = await toolContext(repo.dir, { commandTimeoutMs: 100 });
    const out = await call(ctx, 'run_command', { command: 'sleep 5' });
    expect(out.ok).to.equal(false);
    expect(out.output).to.contain('timed out and was stopped');
  });

  it('M1 passes the timeout, a 5 s SIGKILL delay and an output cap to the shell port', async () => {
    const seen: CommandRequest[] = [];
    const shell: Shell = {
      run: (request): Promise<CommandResult> => {
        seen.push(request);
        return new ExecaShell().run(request);
      },
    };
    const ctx = await toolContext(repo.dir, { shell, commandTimeoutMs: 7000 });
    await call(ctx, 'run_command', { command: 'true', timeout_sec: 3 });
    await call(ctx, 'run_command', { command: 'true', timeout_sec: 60 });
    expect(seen.map((r) => r.timeoutMs)).to.deep.equal([3000, 7000]);
    expect(seen[0]!.killAfterMs).to.equal(5000);
    expect(seen[0]!.maxOutputBytes).to.be.greaterThan(0);
    expect(seen[0]!.cwd).to.equal(ctx.root.real);
  });
});
