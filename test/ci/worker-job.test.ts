import { expect } from 'chai';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseMarker } from '../../src/report/marker.ts';
import { action, assessment, planWith } from '../support/plans.ts';
import { FAREWELL, JobWorld, LLM_KEY } from './job-world.ts';

const CODEX_KEY = 'codex-credential-value-5150';
const JOB_TOKEN = 'ci-job-token-value-8080';

/**
 * A fake `codex` on PATH: records its arguments, its environment and the
 * prompt it got on stdin into `logDir`, writes the farewell into the
 * checkout it was pointed at (`--cd`), and prints the JSONL events of
 * `codex exec --json`.
 */
function fakeCodex(binDir: string, logDir: string): void {
  mkdirSync(binDir, { recursive: true });
  const file = path.join(binDir, 'codex');
  writeFileSync(
    file,
    [
      '#!/bin/sh',
      `printf '%s\\n' "$@" > '${logDir}/args.txt'`,
      `env > '${logDir}/env.txt'`,
      `cat > '${logDir}/prompt.txt'`,
      'repo=""',
      'while [ $# -gt 0 ]; do if [ "$1" = "--cd" ]; then repo="$2"; fi; shift; done',
      'mkdir -p "$repo/src"',
      `cat > "$repo/src/farewell.js" <<'EOF'`,
      FAREWELL.trimEnd(),
      'EOF',
      `echo '{"type":"thread.started","thread_id":"t1"}'`,
      `echo '{"type":"item.completed","item":{"type":"file_change","changes":[{"path":"src/farewell.js","kind":"add"}]}}'`,
      `echo '{"type":"item.completed","item":{"type":"agent_message","text":"Added farewell() in src/farewell.js."}}'`,
      `echo '{"type":"turn.completed","usage":{"input_tokens":10,"output_tokens":5}}'`,
      '',
    ].join('\n'),
  );
  chmodSync(file, 0o755);
}

/**
 * N1 in CI (issue 17 item 3): `mr-agent ci` with MR_AGENT_WORKER=codex-cli
 * hands each planned action to the Codex CLI; planning, verification, notes
 * and delivery stay the run's own. Over real HTTP against the GitLab
 * stand-in and the scripted model, with a fake `codex` on PATH.
 */
describe('ci worker (mr-agent ci with an external coding CLI)', function () {
  this.timeout(60_000);
  let world: JobWorld;
  let tools: string;

  beforeEach(async () => {
    world = await JobWorld.start();
    tools = mkdtempSync(path.join(os.tmpdir(), 'mr-agent-fake-codex-'));
    // the CLI runs as the command user when the test is root (issue 19 §3): it writes its logs here
    chmodSync(tools, 0o777);
  });
  afterEach(async () => {
    await world.close();
    rmSync(tools, { recursive: true, force: true });
  });

  it('N1/O1 MR_AGENT_WORKER=codex-cli: the job runs codex for the action, commits and pushes its change', async () => {
    const bin = path.join(tools, 'bin');
    fakeCodex(bin, tools);
    const job = await world.job({
      replies: [
        {
          purpose: 'planning',
          json: planWith([action('task_1', 'Add farewell()')], ['farewell() exists']),
        },
        { purpose: 'completion', json: assessment(true) },
      ],
      variables: {
        ...world.bridgeVariables('run', 'add a farewell function'),
        CI: 'true',
        PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`,
        MR_AGENT_WORKER: 'codex-cli',
        CODEX_API_KEY: CODEX_KEY,
        CI_JOB_TOKEN: JOB_TOKEN,
      },
    });

    expect(job.code, job.stderr.slice(-3000)).to.equal(0);
    job.llm.assertAllUsed();
    expect(job.llm.requests.map((r) => r.purpose)).to.deep.equal(['planning', 'completion']);
    expect(existsSync(path.join(tools, 'prompt.txt')), 'codex ran').to.equal(true);
    expect(readFileSync(path.join(tools, 'prompt.txt'), 'utf8')).to.contain('Add farewell()');
    const args = readFileSync(path.join(tools, 'args.txt'), 'utf8').split('\n');
    expect(args.slice(0, 2)).to.deep.equal(['exec', '--json']);
    expect(args).to.include('--dangerously-bypass-approvals-and-sandbox');

    const head = world.branchHead();
    expect(world.git(world.s.project.repoDir, 'show', `${head}:src/farewell.js`)).to.equal(
      FAREWELL.trimEnd(),
    );
    const note = world.progressNotes()[0]!.body;
    expect(parseMarker(note)?.state).to.equal('complete');
    expect(note).to.contain(`/-/commit/${head}`);
  });

  it('N1/M1 the worker gets its own credential, never the GitLab token, CI_JOB_TOKEN or the LLM key', async () => {
    const bin = path.join(tools, 'bin');
    fakeCodex(bin, tools);
    const job = await world.job({
      replies: [
        {
          purpose: 'planning',
          json: planWith([action('task_1', 'Add farewell()')], ['farewell() exists']),
        },
        { purpose: 'completion', json: assessment(true) },
      ],
      variables: {
        ...world.bridgeVariables('run', 'add a farewell function'),
        PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`,
        MR_AGENT_WORKER: 'codex-cli',
        CODEX_API_KEY: CODEX_KEY,
        CI_JOB_TOKEN: JOB_TOKEN,
      },
    });

    expect(job.code, job.stderr.slice(-3000)).to.equal(0);
    const env = readFileSync(path.join(tools, 'env.txt'), 'utf8');
    expect(env).to.contain(`CODEX_API_KEY=${CODEX_KEY}`);
    // issue 19 §3: as root, the CLI (which runs the repository's code) runs as another user
    const owner = statSync(path.join(tools, 'env.txt')).uid;
    expect(owner === 0).to.equal(false, 'the worker CLI ran as root');
    expect(env)
      .not.to.contain(world.s.botToken.value)
      .and.not.to.contain(JOB_TOKEN)
      .and.not.to.contain(LLM_KEY);
    expect(job.stdout + job.stderr).not.to.contain(CODEX_KEY);
  });

  it('N1 a worker CLI missing from the job image fails the job before any model call, naming the CLI', async () => {
    const job = await world.job({
      replies: [],
      variables: {
        ...world.bridgeVariables('run', 'add a farewell function'),
        PATH: '/usr/bin:/bin',
        MR_AGENT_WORKER: 'gemini-cli',
        GEMINI_API_KEY: 'gemini-key-1',
      },
    });

    expect(job.code).to.equal(2);
    expect(job.llm.requests).to.have.length(0);
    expect(job.stdout + job.stderr).to.contain(
      'the gemini-cli worker needs `gemini`, which is not on PATH',
    );
  });
});
