// Start-up time of the bundled command: median of repeated runs of
// `node dist/mr-agent.mjs --version`, and of loading the library entry with
// every module of the run path (`dist/index.mjs`).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const RUNS = 15;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function time(args: string[]): number {
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    execFileSync(process.execPath, args, { stdio: 'ignore' });
    samples.push(performance.now() - start);
  }
  return median(samples);
}

if (!existsSync('dist/mr-agent.mjs'))
  execFileSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' });

const baseline = time(['-e', '0']);
const version = time(['dist/mr-agent.mjs', '--version']);
const runPath = time(['--input-type=module', '-e', "await import('./dist/index.mjs')"]);

console.log(`startup (median of ${RUNS}, node ${process.version})`);
console.log(`  node -e 0 (baseline)            ${baseline.toFixed(1)} ms`);
console.log(`  mr-agent --version              ${version.toFixed(1)} ms`);
console.log(`  import dist/index.mjs (run path) ${runPath.toFixed(1)} ms`);
