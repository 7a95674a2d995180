// Issue 18 §3: memory of the real command when the model runs a command that
// prints a lot. `mr-agent ci` (the bundled command, as `npm run build` makes
// it) runs as a child process against the GitLab stand-in and a scripted
// OpenAI-compatible model over HTTP; the model's one action is a run_command
// printing 100 MB, then 1 GB (`dist/mr-agent.mjs`, rebuilt when stale). Peak RSS of the mr-agent process (VmHWM, read
// from /proc while it runs) next to a baseline run whose command prints one
// line. Goal: both under 200 MB — the output streams through a bounded
// head-and-tail buffer, so memory stays flat.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { seedScenario, startGitLabStandIn } from '../src/testkit/gitlab-server/index.ts';
import { startScriptedOpenAiServer } from '../src/testkit/openai-server/server.ts';
import { ensureBuilt } from '../test/support/cli-bundle.ts';
import { action, assessment, planWith } from '../test/support/plans.ts';

const LIMIT_MB = 200;
const KEY = 'sk-bench-command-output';
const dir = mkdtempSync(path.join(os.tmpdir(), 'mr-agent-bench-output-'));
// the shipped artefact, next to its prompts/ (built when src/ is newer than dist/)
ensureBuilt();
const bundle = path.resolve(import.meta.dirname, '../dist/mr-agent.mjs');
const standIn = await startGitLabStandIn();
const s = await seedScenario(standIn.model);

/** A noisy test runner: numbered lines up to `bytes`, its summary, exit 3. */
const printing = (bytes: number) =>
  `yes 'PASS src/module.test.js > adds two numbers (3 ms)' | head -c ${bytes}; ` +
  "echo; echo 'Tests: 3 failed, 997 passed'; exit 3";

function replies(command: string) {
  return [
    { purpose: 'planning', json: planWith([action('task_1', 'Run the tests', 'run_command')]) },
    { purpose: 'execution', tool_calls: [{ name: 'run_command', arguments: { command } }] },
    { purpose: 'execution', content: 'DONE: ran the tests' },
    { purpose: 'completion', json: assessment(true) },
  ];
}

/** Peak RSS (VmHWM) of a process in MB, read until it exits. */
function watchPeak(pid: number): () => number {
  let peakKb = 0;
  const read = () => {
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      peakKb = Math.max(peakKb, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0));
    } catch {
      // the process is gone
    }
  };
  const timer = setInterval(read, 20);
  return () => {
    clearInterval(timer);
    return peakKb / 1024;
  };
}

let jobs = 0;
async function peakOf(label: string, command: string): Promise<number> {
  jobs += 1;
  const checkout = path.join(dir, `job-${jobs}`);
  execFileSync('git', [
    'clone',
    '-q',
    '-b',
    s.mergeRequest.sourceBranch,
    s.project.repoDir,
    checkout,
  ]);
  const llm = await startScriptedOpenAiServer({
    apiKey: KEY,
    scenario: { replies: replies(command) } as Parameters<
      typeof startScriptedOpenAiServer
    >[0]['scenario'],
  });
  const { pipeline, jobs: created } = await standIn.model.createPipeline({
    project: s.project,
    ref: s.mergeRequest.sourceBranch,
    source: 'web',
    userId: s.maintainer.id,
    status: 'running',
  });
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    CI: 'true',
    CI_API_V4_URL: `${standIn.url}/api/v4`,
    CI_SERVER_URL: standIn.url,
    CI_PROJECT_ID: String(s.project.id),
    CI_PROJECT_PATH: s.project.path,
    CI_PROJECT_DIR: checkout,
    CI_DEFAULT_BRANCH: s.project.defaultBranch,
    CI_COMMIT_REF_NAME: s.mergeRequest.sourceBranch,
    CI_PIPELINE_ID: String(pipeline.id),
    CI_JOB_ID: String(created[0]!.id),
    CI_PIPELINE_SOURCE: 'web',
    GITLAB_USER_ID: String(s.maintainer.id),
    MR_AGENT_TASK: 'run the tests',
    MR_AGENT_MR_IID: String(s.mergeRequest.iid),
    MR_AGENT_GITLAB_TOKEN: s.botToken.value,
    OPENAI_API_KEY: KEY,
    OPENAI_BASE_URL: llm.url,
    MR_AGENT_LLM_MODEL: 'scripted-model',
    MR_AGENT_ENVIRONMENT_SETUP: 'false',
    MR_AGENT_TEST_COMMAND: 'true',
    MR_AGENT_COMMAND_TIMEOUT_SEC: '600',
    REFLECTION_INTERVAL: '0',
    REPLANNING_ENABLED: 'false',
    MR_AGENT_REVIEW_ENABLED: 'false',
  };
  const started = Date.now();
  const child = spawn(process.execPath, [bundle, 'ci'], {
    cwd: checkout,
    env,
    stdio: ['ignore', 'ignore', process.env.BENCH_VERBOSE ? 'inherit' : 'ignore'],
  });
  const peak = watchPeak(child.pid!);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  const mb = peak();
  await llm.close();
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(
    `  ${label.padEnd(34)} peak RSS ${mb.toFixed(0).padStart(4)} MB  (exit ${code}, ${seconds} s)`,
  );
  if (code !== 0) throw new Error(`${label}: mr-agent ci exited ${code}`);
  return mb;
}

console.log(`peak RSS of mr-agent ci whose model runs a noisy command (node ${process.version})`);
const baseline = await peakOf('baseline (prints one line)', "echo 'Tests: 1 passed'");
const results = [
  {
    label: 'prints 100 MB, exits 3',
    mb: await peakOf('prints 100 MB, exits 3', printing(100_000_000)),
  },
  {
    label: 'prints 1 GB, exits 3',
    mb: await peakOf('prints 1 GB, exits 3', printing(1_000_000_000)),
  },
];
for (const r of results)
  console.log(`  ${r.label.padEnd(34)} ${(r.mb / baseline).toFixed(2)}× the baseline`);
await standIn.close();
rmSync(dir, { recursive: true, force: true });
const over = results.filter((r) => r.mb >= LIMIT_MB);
console.log(
  over.length === 0
    ? `  both under ${LIMIT_MB} MB ✓`
    : `  over ${LIMIT_MB} MB: ${over.map((r) => r.label).join(', ')}`,
);
process.exitCode = over.length === 0 ? 0 : 1;
