import { expect } from 'chai';
import { spawn } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleCli } from '../../scripts/bundle-cli.mjs';

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  ms: number;
}

/**
 * Runs the bundled command with its stdout on a real pipe whose reading end
 * this side closes: at once (`mr-agent --help | true`), or after the first
 * chunk arrived (`mr-agent demo | head -1`).
 */
function runWithClosedStdout(
  bin: string,
  args: string[],
  cwd: string,
  when: 'at-once' | 'after-first-chunk',
  env: Record<string, string> = {},
): Promise<Ended> {
  const started = Date.now();
  const child = spawn(process.execPath, [bin, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: cwd, CI: 'true', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (when === 'at-once') child.stdout.destroy();
  else child.stdout.once('data', () => child.stdout.destroy());
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) =>
      resolve({ code, signal, stderr, ms: Date.now() - started }),
    );
  });
}

describe('cli/closed output: a reader that goes away ends the command quietly', function () {
  this.timeout(60_000);
  let bin: string;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'mr-agent-closed-output-'));
    // laid out as installed: the demo finds its sample repository beside dist/
    bin = await bundleCli(path.join(dir, 'pkg', 'dist', 'mr-agent.mjs'));
    for (const folder of ['demo', 'prompts'])
      cpSync(folder, path.join(dir, 'pkg', folder), { recursive: true });
    mkdirSync(path.join(dir, 'repo'));
    writeFileSync(
      path.join(dir, 'repo', 'package.json'),
      '{"name":"x","scripts":{"test":"node t"}}',
    );
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const args of [['--help'], ['--version'], ['detect', 'repo'], ['config', 'check']]) {
    it(`C1 \`mr-agent ${args.join(' ')}\` into a closed pipe exits 0 with nothing on stderr`, async () => {
      const ended = await runWithClosedStdout(bin, args, dir, 'at-once');
      expect(ended.stderr).to.equal('');
      expect(ended.code).to.equal(0);
    });
  }

  it('C1 `mr-agent demo | head -1`: the streamed run stops, as on a termination signal, without a stack trace (exit 141)', async () => {
    const tmp = path.join(dir, 'tmp');
    mkdirSync(tmp);
    const ended = await runWithClosedStdout(bin, ['demo', '--keep'], dir, 'after-first-chunk', {
      TMPDIR: tmp,
    });
    expect(ended.stderr).not.to.match(/EPIPE|internal error|\n\s+at /);
    expect(ended.code).to.equal(141);
    // the job was stopped and wrote its final state: cancelled
    const [kept] = readdirSync(tmp).filter((name) => name.startsWith('mr-agent-demo-'));
    const result = JSON.parse(
      readFileSync(path.join(tmp, kept!, 'job', '.mr-agent', 'result.json'), 'utf8'),
    ) as { state: string };
    expect(result.state).to.equal('cancelled');
  });
});
