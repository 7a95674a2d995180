import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createSilentLogger } from '../../src/log/logger.ts';
import { systemClock } from '../../src/core/clock.ts';
import { ExecaShell } from '../../src/shell/execa-shell.ts';
import { createCliWorker } from '../../src/workers/cli-worker.ts';
import { workerEnv } from '../../src/workers/env.ts';
import type { ExternalWorkerKind, SandboxMode } from '../../src/workers/port.ts';
import { CLI_WORKERS } from '../../src/workers/registry.ts';
import { CREDENTIAL, fakeCalls, hostEnv, HOST_SECRETS, tempDir } from './helpers.ts';

const KINDS: ExternalWorkerKind[] = ['codex-cli', 'claude-code', 'gemini-cli'];
const CLI_NAME: Record<ExternalWorkerKind, string> = {
  'codex-cli': 'codex',
  'claude-code': 'claude',
  'gemini-cli': 'gemini',
};

async function setup(kind: ExternalWorkerKind, extraEnv: Record<string, string> = {}) {
  const repo = await tempDir('repo');
  const home = await tempDir('home');
  const log = path.join(await tempDir('log'), 'calls.jsonl');
  const env = workerEnv(hostEnv(home), {
    ...CREDENTIAL[kind],
    FAKE_CLI_LOG: log,
    ...extraEnv,
  });
  return { repo, home, log, env };
}

function worker(kind: ExternalWorkerKind, sandbox: SandboxMode, killAfterMs = 5000) {
  return createCliWorker(CLI_WORKERS[kind], {
    shell: new ExecaShell(),
    clock: systemClock,
    logger: createSilentLogger(),
    sandbox,
    killAfterMs,
  });
}

const EXPECTED_FLAGS: Record<ExternalWorkerKind, Record<SandboxMode, Record<string, unknown>>> = {
  'codex-cli': {
    outer: { '--json': true, '--dangerously-bypass-approvals-and-sandbox': true },
    cli: { '--json': true, '--sandbox': 'workspace-write' },
  },
  'claude-code': {
    outer: { '--print': true, '--output-format': 'json', '--dangerously-skip-permissions': true },
    cli: { '--print': true, '--output-format': 'json', '--permission-mode': 'acceptEdits' },
  },
  'gemini-cli': {
    outer: { '--output-format': 'json', '--approval-mode': 'yolo' },
    cli: { '--output-format': 'json', '--approval-mode': 'auto_edit' },
  },
};

describe('workers/cli-worker', () => {
  for (const kind of KINDS) {
    for (const sandbox of ['outer', 'cli'] as const) {
      it(`N1 ${kind} (${sandbox} sandbox) runs the CLI non-interactively in the repo and reads its JSON`, async () => {
        const { repo, log, env } = await setup(kind);
        const prompt = '- Add a greeting file; keep it "short" & $simple';

        const record = await worker(kind, sandbox).runWorker({
          prompt,
          repoDir: repo,
          env,
          maxRunTimeSec: 30,
          model: 'model-x',
        });

        expect(record.error, record.rawOutput).to.equal(undefined);
        expect(record.exitCode).to.equal(0);
        expect(record.kind).to.equal(kind);
        expect(record.summary).to.contain(`fake-${CLI_NAME[kind]}.txt`);
        expect(record.summary).to.contain('model-x');
        expect(Date.parse(record.finishedAt)).to.be.at.least(Date.parse(record.startedAt));
        const written = await readFile(path.join(repo, `fake-${CLI_NAME[kind]}.txt`), 'utf8');
        expect(written.trim()).to.equal(prompt);
        const [call] = await fakeCalls(log);
        expect(call!.flags).to.include(EXPECTED_FLAGS[kind][sandbox]);
        expect(call!.prompt.trim()).to.equal(prompt);
        for (const name of Object.keys(HOST_SECRETS)) expect(call!.env).not.to.have.property(name);
        expect(call!.env.IS_SANDBOX).to.equal(
          kind === 'claude-code' && sandbox === 'outer' ? '1' : undefined,
        );
      });
    }

    it(`N1 ${kind}: a non-zero exit is recorded with the error the CLI reported`, async () => {
      const { repo, env } = await setup(kind, { FAKE_CLI_SCENARIO: 'fail' });

      const record = await worker(kind, 'outer').runWorker({
        prompt: 'do it',
        repoDir: repo,
        env,
        maxRunTimeSec: 30,
      });

      expect(record.exitCode).to.equal(1);
      expect(record.error).to.match(new RegExp(`^${CLI_NAME[kind]} reported: `));
      expect(record.error).to.match(/500|529|503/);
      expect(record.timedOut).to.equal(false);
    });
  }

  it('max_run_time_sec: a hanging CLI is stopped with SIGTERM and the run records a timeout', async () => {
    const { repo, env } = await setup('codex-cli', { FAKE_CLI_SCENARIO: 'hang' });

    const record = await worker('codex-cli', 'outer').runWorker({
      prompt: 'do it',
      repoDir: repo,
      env,
      // long enough for the fake CLI (a node script) to start even on a loaded machine
      maxRunTimeSec: 4,
    });

    expect(record.timedOut).to.equal(true);
    expect(record.exitCode).to.equal(undefined);
    expect(record.signal).to.equal('SIGTERM');
    expect(record.error).to.match(/^timed out after 4 s \(max_run_time_sec\)/);
    expect(record.rawOutput).to.contain('thread.started');
  });

  it('max_run_time_sec: a CLI that ignores SIGTERM is killed with SIGKILL after the kill delay', async () => {
    const { repo, env, log } = await setup('codex-cli', { FAKE_CLI_SCENARIO: 'hang-ignore-term' });

    const record = await worker('codex-cli', 'outer', 200).runWorker({
      prompt: 'do it',
      repoDir: repo,
      env,
      // the fake must have installed its SIGTERM handler before the limit, even on a loaded machine
      maxRunTimeSec: 4,
    });

    expect(record.timedOut).to.equal(true);
    expect(record.signal).to.equal('SIGKILL');
    const calls = await fakeCalls(log);
    expect(calls.map((c) => c.signal)).to.include('SIGTERM');
  });

  it('a cancelled run stops the CLI and says so', async () => {
    const { repo, env } = await setup('gemini-cli', { FAKE_CLI_SCENARIO: 'hang' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);

    const record = await worker('gemini-cli', 'outer').runWorker({
      prompt: 'do it',
      repoDir: repo,
      env,
      maxRunTimeSec: 30,
      signal: controller.signal,
    });

    expect(record.cancelled).to.equal(true);
    expect(record.error).to.equal('cancelled');
  });

  it('output that is not the expected JSON still yields a summary from the text', async () => {
    const { repo, env } = await setup('claude-code', { FAKE_CLI_SCENARIO: 'not-json' });

    const record = await worker('claude-code', 'outer').runWorker({
      prompt: 'do it',
      repoDir: repo,
      env,
      maxRunTimeSec: 30,
    });

    expect(record.exitCode).to.equal(0);
    expect(record.summary).to.match(/^\(output was not the expected JSON\) .*not in JSON/);
  });

  it('raw output is capped, keeping its head and tail', async () => {
    const { repo, env } = await setup('gemini-cli', { FAKE_CLI_SCENARIO: 'noisy' });

    const record = await createCliWorker(CLI_WORKERS['gemini-cli'], {
      shell: new ExecaShell(),
      clock: systemClock,
      logger: createSilentLogger(),
      sandbox: 'outer',
      maxRawOutputChars: 4000,
    }).runWorker({ prompt: 'do it', repoDir: repo, env, maxRunTimeSec: 30 });

    expect(record.exitCode).to.equal(0);
    expect(record.rawOutput.length).to.be.below(4100);
    expect(record.rawOutput).to.match(/characters cut/);
    expect(record.summary).to.contain('fake-gemini.txt');
  });
});
