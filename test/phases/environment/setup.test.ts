import { existsSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { CancelledError, ExternalServiceError } from '../../../src/errors/errors.ts';
import { Redactor } from '../../../src/log/redact.ts';
import { setupEnvironment } from '../../../src/phases/environment/setup.ts';
import { ScriptedJsonLlm } from './fake-llm.ts';
import { realDeps, tempRepo } from './support.ts';

/** Fails with npm's real network error text until it has run `failures` times, then succeeds. */
const flakyScript = (failures: number, text: string) => `
n=$(cat .count 2>/dev/null || echo 0)
n=$((n + 1))
echo "$n" > .count
if [ "$n" -le ${failures} ]; then
  printf '%s\\n' "${text}" >&2
  exit 1
fi
echo "installed after $n runs"
`;

const NPM_NETWORK = 'npm error code ECONNRESET\nnpm error network aborted';

describe('environment setup manager (SPEC E1–E5, seed 000 §5.3, §8)', function () {
  this.timeout(60_000);
  let repo: ReturnType<typeof tempRepo>;
  afterEach(() => repo?.cleanup());

  it('E2 a flaky network failure succeeds after backoff 5 s, 10 s (no LLM call)', async () => {
    repo = tempRepo({ 'install.sh': flakyScript(2, NPM_NETWORK) });
    const llm = new ScriptedJsonLlm();
    const { deps, clock } = realDeps(repo.dir, llm);
    const result = await setupEnvironment(
      {
        name: 'node',
        setup_commands: ['sh install.sh'],
        verification: [{ command: 'cat .count', expected_output: '3' }],
      },
      deps,
    );
    expect(result.handoff).to.deep.equal({
      environment_ready: true,
      environment_name: 'node',
      setup_status: 'success',
      errors: [],
    });
    expect(clock.sleeps).to.deep.equal([5000, 10000]);
    expect(result.retries).to.deep.equal({ network: 2, 'server-error': 0, lock: 0 });
    expect(result.records[0]).to.include({
      stage: 'setup',
      command: 'sh install.sh',
      exitCode: 0,
      attempts: 3,
    });
    expect(result.records[0]!.outputTail).to.include('installed after 3 runs');
    expect(result.records[1]).to.include({ stage: 'verification', matched: true, actual: '3' });
    expect(llm.requests).to.have.length(0);
    expect(result.note).to.equal(undefined);
  });

  it('E2 lock contention waits 3 s five times, then gives up without regeneration', async () => {
    repo = tempRepo({
      'lock.sh': `printf "fatal: Unable to create '%s/.git/index.lock': File exists.\\n" "$PWD" >&2; exit 128`,
    });
    const llm = new ScriptedJsonLlm();
    const { deps, clock } = realDeps(repo.dir, llm);
    const result = await setupEnvironment(
      { name: 'python', setup_commands: ['sh lock.sh'], verification: [] },
      deps,
    );
    expect(clock.sleeps).to.deep.equal([3000, 3000, 3000, 3000, 3000]);
    expect(result.handoff.setup_status).to.equal('failed');
    expect(result.classification).to.include({ class: 'retryable', kind: 'lock' });
    expect(result.note)
      .to.include('- Retries: network 0, server errors 0, locks 5')
      .and.include('- Setup commands regenerated 0 of 3 times');
    expect(result.note).to.include('Stopped because: the lock retries were used up');
    expect(llm.requests).to.have.length(0);
  });

  it('E2 a temporary server error waits 10 s three times', async () => {
    repo = tempRepo({
      'mirror.sh': `echo "npm error code E503" >&2; echo "npm error 503 Service Unavailable - GET https://registry.npmjs.org/react" >&2; exit 1`,
    });
    const { deps, clock } = realDeps(repo.dir, new ScriptedJsonLlm());
    const result = await setupEnvironment(
      { name: 'node', setup_commands: ['sh mirror.sh'], verification: [] },
      deps,
    );
    expect(clock.sleeps).to.deep.equal([10000, 10000, 10000]);
    expect(result.retries['server-error']).to.equal(3);
    expect(result.records[0]!.attempts).to.equal(4);
  });

  it('E2 a wrong package name is fixed by a scripted LLM regeneration (real npm, offline)', async () => {
    repo = tempRepo({
      'package.json': JSON.stringify({ name: 'padder', version: '1.0.0', private: true }),
      'vendor/left-pad/package.json': JSON.stringify({
        name: 'left-pad',
        version: '1.3.0',
        main: 'index.js',
      }),
      'vendor/left-pad/index.js': 'module.exports = (s, n, c) => String(s).padStart(n, c);\n',
    });
    const install = (dir: string) =>
      `npm install --offline --no-audit --no-fund --no-save ./vendor/${dir}`;
    const check = {
      command: `node -e "process.stdout.write(require('left-pad')('7', 3, '0'))"`,
      expected_output: '007',
    };
    const llm = new ScriptedJsonLlm([
      { setup_commands: [install('left-pad')], verification: [check] },
    ]);
    const { deps } = realDeps(repo.dir, llm);
    const result = await setupEnvironment(
      { name: 'node', setup_commands: [install('lefpad')], verification: [check] },
      deps,
    );
    expect(result.handoff).to.deep.include({ environment_ready: true, setup_status: 'success' });
    expect(result.regenerations).to.equal(1);
    const first = result.records[0]!;
    expect(first.exitCode).to.not.equal(0);
    expect(first.classification).to.include({
      class: 'fixable',
      kind: 'missing-file',
      tool: 'npm',
    });
    expect(llm.requests[0]).to.include({ purpose: 'environment.regenerate', role: 'planning' });
    expect(llm.userMessage(0)).to.include(install('lefpad')).and.include('ENOENT');
    expect(result.setupCommands).to.deep.equal([install('left-pad')]);
    expect(existsSync(path.join(repo.dir, 'node_modules/left-pad/package.json'))).to.equal(true);
    expect(llm.unused).to.equal(0);
  });

  it('E3 a verification mismatch triggers regeneration; stdout must match exactly', async () => {
    repo = tempRepo();
    const llm = new ScriptedJsonLlm([
      {
        setup_commands: ['echo built > out.txt'],
        verification: [{ command: 'cat out.txt', expected_output: 'built' }],
      },
    ]);
    const { deps } = realDeps(repo.dir, llm);
    const result = await setupEnvironment(
      {
        name: 'python',
        setup_commands: ['echo built > out.txt'],
        verification: [{ command: 'cat out.txt', expected_output: 'BUILT' }],
      },
      deps,
    );
    expect(result.handoff.setup_status).to.equal('success');
    expect(result.regenerations).to.equal(1);
    const mismatch = result.records.find((r) => r.stage === 'verification' && !r.matched)!;
    expect(mismatch).to.include({ exitCode: 0, expected: 'BUILT', actual: 'built' });
    expect(mismatch.classification).to.include({ class: 'fixable', kind: 'verification-mismatch' });
    expect(llm.userMessage(0))
      .to.include('expected stdout: "BUILT"')
      .and.include('actual stdout: "built"');
  });

  it('E3 only one final newline is stripped: a trailing space or a second newline is a mismatch', async () => {
    repo = tempRepo();
    const { deps } = realDeps(repo.dir, new ScriptedJsonLlm(), { maxRegenerations: 0 });
    const ok = await setupEnvironment(
      {
        name: 'python',
        setup_commands: [],
        verification: [{ command: 'printf "OK\\n"', expected_output: 'OK' }],
      },
      deps,
    );
    expect(ok.handoff.setup_status).to.equal('success');
    for (const command of ['printf "OK\\n\\n"', 'printf "OK "']) {
      const bad = await setupEnvironment(
        { name: 'python', setup_commands: [], verification: [{ command, expected_output: 'OK' }] },
        deps,
      );
      expect(bad.handoff.setup_status, command).to.equal('failed');
    }
  });

  it('E4 three failed regenerations give the warning note and hand over setup_status: failed', async () => {
    repo = tempRepo({
      'pip.sh': `echo "ERROR: Could not find a version that satisfies the requirement $1 (from versions: none)" >&2\necho "ERROR: No matching distribution found for $1" >&2\nexit 1`,
    });
    const attempt = (name: string) => ({
      setup_commands: [`sh pip.sh ${name}`],
      verification: [{ command: 'echo OK', expected_output: 'OK' }],
    });
    const llm = new ScriptedJsonLlm([
      attempt('reqeusts2'),
      attempt('reqeusts3'),
      attempt('reqeusts4'),
    ]);
    const redactor = new Redactor();
    redactor.add('s3cr3t-token-value');
    const { deps } = realDeps(repo.dir, llm, { redactor, marker: { job: '77', pipeline: '9' } });
    const result = await setupEnvironment(
      { name: 'python', setup_commands: ['sh pip.sh reqeusts'], verification: [] },
      deps,
    );
    expect(llm.requests).to.have.length(3);
    expect(llm.unused).to.equal(0);
    expect(result.regenerations).to.equal(3);
    expect(result.records.filter((r) => r.stage === 'setup').map((r) => r.command)).to.deep.equal([
      'sh pip.sh reqeusts',
      'sh pip.sh reqeusts2',
      'sh pip.sh reqeusts3',
      'sh pip.sh reqeusts4',
    ]);
    expect(result.handoff).to.deep.include({
      environment_ready: false,
      environment_name: 'python',
      setup_status: 'failed',
    });
    expect(result.handoff.errors[0])
      .to.include('sh pip.sh reqeusts4')
      .and.include('satisfies the requirement reqeusts4');
    const note = result.note!;
    expect(note.startsWith('<!-- mr-agent:environment-failed job=77 pipeline=9 -->')).to.equal(
      true,
    );
    expect(note)
      .to.include('### ⚠️ Environment setup failed')
      .and.include('in the **python** environment');
    expect(note)
      .to.include('- Setup commands regenerated 3 of 3 times')
      .and.include('- Classified as: `unknown-package`, `pip`, fixable in the setup commands');
    expect(note).to.include('Stopped because: the 3 LLM regenerations were used up');
    expect(llm.userMessage(2)).to.include('regeneration 3 of 3');
  });

  it('E2 exit 137 (killed) is fatal: no retry, no regeneration', async () => {
    repo = tempRepo();
    const llm = new ScriptedJsonLlm();
    const { deps, clock } = realDeps(repo.dir, llm);
    const result = await setupEnvironment(
      { name: 'java', setup_commands: ['echo compiling; kill -9 $$'], verification: [] },
      deps,
    );
    expect(result.classification).to.include({ class: 'fatal', kind: 'killed' });
    expect(clock.sleeps).to.deep.equal([]);
    expect(llm.requests).to.have.length(0);
    expect(result.note).to.include('Stopped because: a fatal error');
  });

  it('E4 a failing regeneration call ends setup with the service error recorded', async () => {
    repo = tempRepo();
    const llm = new ScriptedJsonLlm([
      new ExternalServiceError('llm', 'the model endpoint answered 500'),
    ]);
    const { deps } = realDeps(repo.dir, llm);
    const result = await setupEnvironment(
      { name: 'go', setup_commands: ['exit 3'], verification: [] },
      deps,
    );
    expect(result.handoff.setup_status).to.equal('failed');
    expect(result.handoff.errors.join('\n')).to.include('the model endpoint answered 500');
    expect(result.note)
      .to.include('the regeneration request failed')
      .and.include('Setup commands regenerated 1 of 3 times');
  });

  it('E5 setup_enabled false hands over skipped without running anything', async () => {
    repo = tempRepo();
    const { deps } = realDeps(repo.dir, new ScriptedJsonLlm(), { enabled: false });
    const result = await setupEnvironment(
      { name: 'node', setup_commands: ['touch ran'], verification: [] },
      deps,
    );
    expect(result.handoff).to.deep.equal({
      environment_ready: false,
      environment_name: 'node',
      setup_status: 'skipped',
      errors: [],
    });
    expect(existsSync(path.join(repo.dir, 'ran'))).to.equal(false);
  });

  it('a cancelled run stops with CancelledError', async () => {
    repo = tempRepo();
    const controller = new AbortController();
    controller.abort();
    const { deps } = realDeps(repo.dir, new ScriptedJsonLlm(), { signal: controller.signal });
    let error: unknown;
    await setupEnvironment(
      { name: 'node', setup_commands: ['true'], verification: [] },
      deps,
    ).catch((e: unknown) => (error = e));
    expect(error).to.be.instanceOf(CancelledError);
  });

  it('E1 secrets in command output are masked in records, prompt and note', async () => {
    repo = tempRepo();
    const redactor = new Redactor();
    redactor.add('s3cr3t-token-value');
    const llm = new ScriptedJsonLlm([
      { setup_commands: ['false'], verification: [{ command: 'true', expected_output: '' }] },
    ]);
    const { deps } = realDeps(repo.dir, llm, { redactor, maxRegenerations: 1 });
    deps.env = { ...deps.env, REGISTRY_VALUE: 's3cr3t-token-value' };
    const result = await setupEnvironment(
      {
        name: 'node',
        setup_commands: ['echo "token $REGISTRY_VALUE" >&2; exit 1'],
        verification: [],
      },
      deps,
    );
    const everything = JSON.stringify(result.records) + llm.userMessage(0) + result.note!;
    expect(everything, everything).to.not.include('s3cr3t-token-value');
    expect(everything).to.include('[MASKED]');
  });
});
