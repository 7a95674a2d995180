// The isolation's cost per command on a generated 50 000-file checkout, next to a 6-file one.
// Run: npx tsx bench/hand-over.bench.ts (as root: the command user is real). Each command is
// prepared as the run prepares it (`isolatedRequest`: hand-over of what the agent wrote, the
// command user's spawn options); the agent writes one file through `write_file`'s hand-over
// between commands. Measured in process: the hand-over has no CLI surface of its own. The first
// command's whole-tree hand-over (one `find`) is reported for information.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { handOverWritten } from '../src/shell/hand-over.ts';
import { startIsolation } from '../src/shell/isolation.ts';
import { isolatedRequest } from '../src/core/isolation.ts';
import { median, ms, reportGoal, times, verdictOf } from './support/goals.ts';

const COMMANDS = 30;

function generate(root: string, count: number): void {
  for (let i = 0; i < count; i += 1) {
    const dir = path.join(root, `pkg${i % 50}`, `mod${Math.floor(i / 50) % 20}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `file${i}.ts`), `export const v = ${i};\n`);
  }
}

async function measure(count: number): Promise<{ first: number; perCommand: number }> {
  const base = mkdtempSync(path.join(tmpdir(), 'bench-hand-over-'));
  const checkout = path.join(base, 'repo');
  mkdirSync(checkout);
  mkdirSync(path.join(checkout, '.git'));
  generate(checkout, count);
  try {
    const isolation = await startIsolation({
      security: { isolation: 'required', command_user: 'agent' },
      checkout,
      stateDir: '.mr-agent',
      local: true,
    });
    if (isolation.kind !== 'separate-user') throw new Error(`not isolated: ${isolation.reason}`);
    const request = { command: 'true', cwd: checkout, env: { PATH: '/usr/bin:/bin' } };
    let started = performance.now();
    await isolatedRequest(isolation, request);
    const first = performance.now() - started;
    const times: number[] = [];
    for (let i = 0; i < COMMANDS; i += 1) {
      const file = path.join(checkout, `agent-wrote/${i}/new.ts`);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, 'x\n');
      started = performance.now();
      await handOverWritten(isolation, file);
      await isolatedRequest(isolation, request);
      times.push(performance.now() - started);
    }
    return { first, perCommand: median(times) };
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

if (process.getuid?.() !== 0) {
  console.log('hand-over bench: skipped (needs root for a real command user)');
} else {
  const small = await measure(6);
  const large = await measure(50_000);
  console.log(
    `hand-over per command: ${ms(large.perCommand)} on 50 000 files, ${ms(small.perCommand)} on 6 files; first command's whole-tree hand-over: ${ms(large.first)} / ${ms(small.first)}`,
  );
  reportGoal({
    goal: 'isolation hand-over per command on 50 000 files ≤ 50 ms',
    figure: ms(large.perCommand),
    baseline: '',
    ratio: `${(large.perCommand / 50).toFixed(2)} of 50 ms`,
    verdict: verdictOf(large.perCommand <= 50),
  });
  reportGoal({
    goal: 'hand-over per command, 50 000 files vs 6 files ≤ 1.5×',
    figure: ms(large.perCommand),
    baseline: ms(small.perCommand),
    ratio: times(large.perCommand / small.perCommand),
    verdict: verdictOf(large.perCommand <= 1.5 * Math.max(small.perCommand, 1)),
  });
  reportGoal({
    goal: 'first command’s whole-tree hand-over on 50 000 files (once per job)',
    figure: ms(large.first),
    baseline: ms(small.first),
    ratio: times(large.first / Math.max(small.first, 0.1)),
    verdict: 'info',
  });
}
