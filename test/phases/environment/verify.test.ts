import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as wait } from 'node:timers/promises';
import { expect } from 'chai';
import { CancelledError } from '../../../src/errors/errors.ts';
import type { CommandRecord, RetryCounts } from '../../../src/phases/environment/run-command.ts';
import { setupEnvironment } from '../../../src/phases/environment/setup.ts';
import { runVerification } from '../../../src/phases/environment/verify.ts';
import { ScriptedJsonLlm } from './fake-llm.ts';
import { realDeps, tempRepo } from './support.ts';

const SIDE_BY_SIDE = { sideBySide: true };
const noRetries = (): RetryCounts => ({ network: 0, 'server-error': 0, lock: 0 });

/** Waits (up to 1.5 s) for `file`, then prints `text`; prints nothing if it never comes. */
const waitFor = (file: string, text: string) =>
  `i=0; while [ ! -f ${file} ] && [ $i -lt 15 ]; do sleep 0.1; i=$((i+1)); done; [ -f ${file} ] && printf ${text}`;

describe('verification checks side by side (SPEC E3, seed 000 §5.3)', function () {
  this.timeout(20_000);
  let repo: ReturnType<typeof tempRepo>;
  afterEach(() => repo?.cleanup());

  it('E3 the checks of a round run at the same time: a check that waits for a later one passes', async () => {
    repo = tempRepo();
    const { deps } = realDeps(repo.dir, new ScriptedJsonLlm());
    const records = await runVerification(
      [
        { command: waitFor('.second-ran', 'first'), expected_output: 'first' },
        { command: 'touch .second-ran && printf second', expected_output: 'second' },
      ],
      0,
      deps,
      noRetries(),
      SIDE_BY_SIDE,
    );
    expect(records.map((r) => [r.actual, r.matched])).to.deep.equal([
      ['first', true],
      ['second', true],
    ]);
  });

  it('E3 checks detection did not propose (the planner’s, a regeneration’s) run one by one: they may build', async () => {
    repo = tempRepo();
    const racing = [
      { command: waitFor('.second-ran', 'first'), expected_output: 'first' },
      { command: 'touch .second-ran && printf second', expected_output: 'second' },
    ];
    const { deps } = realDeps(
      repo.dir,
      new ScriptedJsonLlm([{ setup_commands: [], verification: racing }]),
      {
        maxRegenerations: 1,
      },
    );
    // the detected checks of the first round run side by side; the model's repeat of them does not
    const detected = await setupEnvironment(
      { name: 'node', setup_commands: [], verification: racing, checks_detected: true },
      deps,
    );
    expect(detected.handoff.setup_status).to.equal('success');
    rmSync(path.join(repo.dir, '.second-ran'));
    const planned = await setupEnvironment(
      { name: 'node', setup_commands: [], verification: racing },
      deps,
    );
    expect(planned.handoff.setup_status).to.equal('failed');
    expect(planned.regenerations).to.equal(1);
    const checks = planned.records.filter((r) => r.stage === 'verification');
    expect(checks.map((r) => [r.round, r.actual, r.matched])).to.deep.equal([
      [0, '', false],
      [1, '', false],
    ]);
  });

  it('E3 records come in the checks’ order, told one by one, whichever finishes first', async () => {
    repo = tempRepo();
    const told: string[] = [];
    const { deps } = realDeps(repo.dir, new ScriptedJsonLlm(), {
      onRecord: (record: CommandRecord) => told.push(record.actual ?? ''),
    });
    const records = await runVerification(
      [
        { command: 'sleep 0.3; printf one', expected_output: 'one' },
        { command: 'printf two', expected_output: 'two' },
        { command: 'sleep 0.1; printf three', expected_output: 'three' },
      ],
      0,
      deps,
      noRetries(),
      SIDE_BY_SIDE,
    );
    expect(records.map((r) => r.actual)).to.deep.equal(['one', 'two', 'three']);
    expect(told).to.deep.equal(['one', 'two', 'three']);
  });

  it('E3 the first failing check ends the round: later checks are stopped, not reported, and their retries not counted', async () => {
    repo = tempRepo();
    const told: string[] = [];
    const { deps } = realDeps(repo.dir, new ScriptedJsonLlm(), {
      onRecord: (record: CommandRecord) => told.push(record.command),
    });
    const retries = noRetries();
    const started = Date.now();
    const records = await runVerification(
      [
        { command: 'printf ok', expected_output: 'ok' },
        { command: 'sleep 0.3; printf wrong', expected_output: 'right' },
        // a network failure, retried (the fake clock's waits return at once) until stopped
        {
          command: 'echo "npm error code ECONNRESET" >&2; exit 1',
          expected_output: '',
        },
        { command: 'sleep 2; touch .late; printf late', expected_output: 'late' },
      ],
      0,
      deps,
      retries,
      SIDE_BY_SIDE,
    );
    expect(Date.now() - started).to.be.below(1800);
    expect(records.map((r) => [r.command.slice(0, 10), r.matched])).to.deep.equal([
      ['printf ok', true],
      ['sleep 0.3;', false],
    ]);
    expect(records[1]!.classification).to.include({ kind: 'verification-mismatch' });
    expect(told).to.have.length(2);
    expect(retries).to.deep.equal(noRetries());
    await wait(3000 - (Date.now() - started));
    expect(existsSync(path.join(repo.dir, '.late')), 'the stopped check went on').to.equal(false);
  });

  it('E2 the retries of the checks that are reported are counted', async () => {
    repo = tempRepo({
      'flaky.sh':
        'n=$(cat .n 2>/dev/null || echo 0); n=$((n+1)); echo $n > .n; if [ $n -le 1 ]; then echo "npm error code ECONNRESET" >&2; exit 1; fi; printf ready',
    });
    const { deps } = realDeps(repo.dir, new ScriptedJsonLlm());
    const retries = noRetries();
    const records = await runVerification(
      [
        { command: 'sh flaky.sh', expected_output: 'ready' },
        { command: 'printf ok', expected_output: 'ok' },
      ],
      0,
      deps,
      retries,
      SIDE_BY_SIDE,
    );
    expect(records.map((r) => [r.attempts, r.matched])).to.deep.equal([
      [2, true],
      [1, true],
    ]);
    expect(retries).to.deep.equal({ network: 1, 'server-error': 0, lock: 0 });
  });

  it('a cancelled round stops every check with CancelledError', async () => {
    repo = tempRepo();
    const controller = new AbortController();
    const { deps } = realDeps(repo.dir, new ScriptedJsonLlm(), { signal: controller.signal });
    setTimeout(() => controller.abort(), 200);
    const started = Date.now();
    let error: unknown;
    await runVerification(
      [
        { command: 'sleep 5; touch .first', expected_output: '' },
        { command: 'sleep 5; touch .second', expected_output: '' },
      ],
      0,
      deps,
      noRetries(),
    ).catch((e: unknown) => (error = e));
    expect(error).to.be.instanceOf(CancelledError);
    expect(Date.now() - started).to.be.below(4000);
  });
});
