/**
 * Issue 18 §3 (SPEC K4, M1): command output is streamed through a bounded
 * head-and-tail buffer. The command runs to its end (its time limit still
 * applies), and the model gets the real exit code, the first and last parts
 * of the output and the exact count of what was cut — capped once. Real
 * commands through the execa shell adapter in a temp folder.
 */
import { expect } from 'chai';
import { tmpdir } from 'node:os';
import { ExecaShell } from '../../src/shell/execa-shell.ts';
import { makeTempRepo } from '../support/temp-repo.ts';
import { toolContext } from '../support/tool-context.ts';
import { call } from './call.ts';

const MB = 1_000_000;
const CUT = /\n…\[(\d+) bytes \((\d+) lines\) of output cut\]…\n/g;

/** Head, tail and the numbers of the one cut marker in the model's text. */
function parts(output: string) {
  const markers = [...output.matchAll(CUT)];
  expect(markers, `one cut marker in:\n${output.slice(0, 300)}`).to.have.length(1);
  const marker = markers[0]!;
  return {
    head: output.slice(0, marker.index),
    tail: output.slice(marker.index + marker[0].length),
    bytes: Number(marker[1]),
    lines: Number(marker[2]),
  };
}

describe('tools/run_command: output streamed, head and tail kept, cut counted (issue 18 §3, K4 M1)', function () {
  this.timeout(60_000);
  let repo: Awaited<ReturnType<typeof makeTempRepo>>;
  beforeEach(async () => {
    repo = await makeTempRepo({ 'a.txt': 'a' });
  });
  afterEach(() => repo.cleanup());

  it('issue 18 done-when: a command printing 100 MB and exiting 3 shows the model exit code 3, its last lines and the exact cut count', async () => {
    const ctx = await toolContext(repo.dir, { maxOutputChars: 16_000 });
    // 100 MB of numbered lines of 10 bytes ("000001 ok\n"…), then the test runner's summary
    const command =
      'awk \'BEGIN { for (i = 1; i <= 10000000; i++) printf "%06d ok\\n", i % 1000000 }\'; ' +
      "echo 'Tests: 3 failed, 997 passed'; echo 'FAIL src/sum.test.js'; exit 3";
    const totalBytes =
      100 * MB + 'Tests: 3 failed, 997 passed\n'.length + 'FAIL src/sum.test.js\n'.length;
    const totalLines = 10_000_000 + 2;

    const out = await call(ctx, 'run_command', { command });

    expect(out.ok).to.equal(false);
    expect(out.output).to.match(/^Error: the command failed — exit code: 3, \d+ ms\n/);
    expect(out.output.length, 'capped to the model budget').to.be.at.most(16_000);
    const text = out.output.slice(out.output.indexOf('\n') + 1);
    const { head, tail, bytes, lines } = parts(text);
    expect(head.startsWith('000001 ok\n000002 ok\n')).to.equal(true);
    expect(tail.endsWith('Tests: 3 failed, 997 passed\nFAIL src/sum.test.js')).to.equal(true);
    // exact: what is shown plus what was cut is everything the command printed
    // the marker's own line follows the head's last line break; the output's final one is stripped
    const shown = Buffer.byteLength(head) + 1 + Buffer.byteLength(tail) + 1;
    expect(bytes + shown).to.equal(totalBytes);
    const shownLines = head.split('\n').length + tail.split('\n').length;
    expect(lines + shownLines).to.equal(totalLines);
    // cut at line boundaries: the head ends a line, the tail starts one
    expect(head.endsWith('ok')).to.equal(true);
    expect(/^\d{6} ok\n/.test(tail)).to.equal(true);
  });

  it('K4 output within the budget is given whole, with no marker', async () => {
    const ctx = await toolContext(repo.dir);
    const out = await call(ctx, 'run_command', { command: 'seq 1 100; exit 2' });
    expect(out.output).to.match(/^Error: the command failed — exit code: 2, \d+ ms\n1\n2\n/);
    expect(out.output).to.match(/\n100$/);
    expect(out.output).not.to.contain('cut');
  });

  it('K4 a secret in the kept parts is masked, and the text still fits the budget', async () => {
    const ctx = await toolContext(repo.dir, { maxOutputChars: 2000 });
    ctx.redactor.add('s3cr3t-value-123456');
    const out = await call(ctx, 'run_command', {
      command: 'echo s3cr3t-value-123456; seq 1 100000; echo s3cr3t-value-123456',
    });
    expect(out.output).not.to.contain('s3cr3t-value-123456');
    expect(out.output.match(/\[MASKED\]/g)).to.have.length(2);
    expect(out.output.length).to.be.at.most(2000);
    parts(out.output.slice(out.output.indexOf('\n') + 1));
  });
});

describe('shell/execa: a command printing a lot runs to its end in bounded memory (issue 18 §3)', function () {
  this.timeout(60_000);

  it('M1 keeps the head and the tail of each stream and counts the rest; the command is not stopped', async () => {
    const result = await new ExecaShell().run({
      command: "seq 1 1000000; echo done >&2; sleep 0.2; echo 'last line'; exit 4",
      cwd: tmpdir(),
      env: { PATH: process.env.PATH ?? '' },
      maxOutputBytes: 10_000,
    });
    expect(result).to.include({ exitCode: 4, failed: true, timedOut: false });
    expect(result.outputCut?.bytes).to.be.greaterThan(6_000_000);
    expect(result.stdout.startsWith('1\n2\n3\n')).to.equal(true);
    expect(result.stdout.endsWith('1000000\nlast line')).to.equal(true);
    expect(result.stderr).to.equal('done');
    expect(result.output.length).to.be.below(11_000);
  });

  it('M1 the time limit still applies to a command that keeps printing', async () => {
    const result = await new ExecaShell().run({
      command: 'yes',
      cwd: tmpdir(),
      env: { PATH: process.env.PATH ?? '' },
      timeoutMs: 300,
      killAfterMs: 500,
      maxOutputBytes: 1000,
    });
    expect(result).to.include({ timedOut: true, failed: true });
    expect(result.output.length).to.be.below(1200);
  });
});
