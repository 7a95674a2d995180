// A3: how fast `mr-agent ci` ends a pipeline started by a comment that is not a
// command (TRIGGER_PAYLOAD). Median and fastest of repeated runs of the bundled
// command in a fresh process, next to `mr-agent --version` and bare Node (the
// fastest run shows the cost without the noise of a busy machine).
// Goal (SPEC A3, issue 9): well under one second.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { bundleCli } from '../scripts/bundle-cli.mjs';

const RUNS = 15;
const dir = mkdtempSync(path.join(os.tmpdir(), 'mr-agent-bench-ci-'));
const bundle = await bundleCli(path.join(dir, 'mr-agent.mjs'));
const payload = path.join(dir, 'TRIGGER_PAYLOAD');
writeFileSync(
  payload,
  JSON.stringify({
    object_kind: 'note',
    user: { id: 5, username: 'dev' },
    project: { id: 1, default_branch: 'main' },
    object_attributes: { id: 77, note: 'LGTM, thanks!', noteable_type: 'MergeRequest' },
    merge_request: { iid: 3, source_branch: 'feature/x' },
  }),
);
const env = {
  PATH: process.env.PATH ?? '',
  CI: 'true',
  CI_API_V4_URL: 'https://gitlab.example.com/api/v4',
  CI_PROJECT_ID: '1',
  CI_PROJECT_DIR: dir,
  CI_DEFAULT_BRANCH: 'main',
  CI_PIPELINE_ID: '1',
  CI_JOB_ID: '2',
  CI_PIPELINE_SOURCE: 'trigger',
  TRIGGER_PAYLOAD: payload,
};

function time(args: string[], withEnv = env): { median: number; min: number } {
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    execFileSync(process.execPath, args, { stdio: 'ignore', env: withEnv });
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  return { median: samples[Math.floor(RUNS / 2)]!, min: samples[0]! };
}

const show = (label: string, t: { median: number; min: number }) =>
  console.log(
    `  ${label.padEnd(46)} median ${t.median.toFixed(0)} ms, fastest ${t.min.toFixed(0)} ms`,
  );

console.log(`mr-agent ci on a non-command comment (${RUNS} runs, node ${process.version})`);
show('node -e 0 (baseline)', time(['-e', '0']));
show('mr-agent --version', time([bundle, '--version']));
show('mr-agent ci (TRIGGER_PAYLOAD: not a command)', time([bundle, 'ci']));
show('mr-agent ci --step plan (+ child pipeline)', time([bundle, 'ci', '--step', 'plan']));
rmSync(dir, { recursive: true, force: true });
