import { spawn, type ChildProcess } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { CliIo } from '../../../src/cli/io.ts';
import { runLocal } from '../../../src/cli/commands/run-local.ts';
import { createOpenAiLlm } from '../../../src/llm/openai-llm.ts';
import { parseMarker } from '../../../src/report/marker.ts';
import { FakeClock } from '../../../src/core/clock.ts';
import type { ScriptedReplyInput } from '../../../src/testkit/openai-server/scenario.ts';
import {
  startScriptedOpenAiServer,
  type ScriptedOpenAiServer,
} from '../../../src/testkit/openai-server/server.ts';
import { makeTempRepo } from '../../support/temp-repo.ts';
import { SECRETS, secretEnv } from './secrets.ts';

/**
 * `mr-agent run` end to end for the hardening suites: a real git repository,
 * the scripted OpenAI-compatible server over HTTP (holding the LLM key), and
 * every secret in the environment. Runs go in-process through the CLI's run
 * command (`runLocal`, with a fake clock so retries do not sleep) or as a
 * child process (`src/cli/bin.ts`) for signals.
 */
const BIN = path.resolve(import.meta.dirname, '../../../src/cli/bin.ts');
const ROOT = path.resolve(import.meta.dirname, '../../..');

export interface RunWorldOptions {
  replies: ScriptedReplyInput[];
  files?: Record<string, string>;
  /** `--set` flags besides the defaults below. */
  sets?: string[];
  env?: Record<string, string>;
  task?: string;
}

export interface RunState {
  /** The final marker state of the progress note (`complete`, `failed`, `cancelled`…). */
  progressState: string | undefined;
  notes: Record<string, string>;
  runs: { state: string }[];
  historyEntries: number;
  result: Record<string, unknown> | undefined;
  /** Every file under `.mr-agent/` (relative path → text). */
  files: Record<string, string>;
}

export interface RunWorld {
  dir: string;
  server: ScriptedOpenAiServer;
  env: Record<string, string>;
  argv: string[];
  runInProcess(options?: { timeoutMs?: number }): Promise<{ code: number; out: string }>;
  spawnChild(): { child: ChildProcess; output: () => string; exit: Promise<number | null> };
  state(): Promise<RunState>;
  close(): Promise<void>;
}

const DEFAULT_SETS = ['planning.reflection.trigger_interval=0', 'llm.max_attempts=3'];

async function readTree(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const visit = async (dir: string) => {
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) await visit(full);
      else if (entry.isFile()) out[path.relative(root, full)] = await readFile(full, 'utf8');
    }
  };
  await visit(root);
  return out;
}

function lines(text: string | undefined): number {
  return (text ?? '').split('\n').filter((l) => l.trim() !== '').length;
}

export async function startRunWorld(options: RunWorldOptions): Promise<RunWorld> {
  const repo = await makeTempRepo({ 'package.json': '{"name": "app"}\n', ...options.files });
  const server = await startScriptedOpenAiServer({
    apiKey: SECRETS.llmKey,
    scenario: { json_schema: false, replies: options.replies },
  });
  const env = {
    ...secretEnv(),
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
    OPENAI_BASE_URL: server.url,
    MR_AGENT_LLM_MODEL: 'scripted-model',
    MR_AGENT_ENVIRONMENT_SETUP: 'false',
    // our own test world: commands run on a machine without root too (issue 19 §3)
    MR_AGENT_ISOLATION: 'accept-risk',
    // the cells script the core phases; review and replanning have their own
    // fault and scenario tests (test/phases/review, test/replan)
    MR_AGENT_REVIEW_ENABLED: 'false',
    REPLANNING_ENABLED: 'false',
    MR_AGENT_LOG_FORMAT: 'json',
    MR_AGENT_LOG_LEVEL: 'debug',
    ...options.env,
  };
  const sets = [...DEFAULT_SETS, ...(options.sets ?? [])];
  const task = options.task ?? 'Write 42 into answer.txt';
  const argv = ['run', '--task', task, '--repo', repo.dir, ...sets.flatMap((s) => ['--set', s])];
  const stateDir = path.join(repo.dir, '.mr-agent');
  return {
    dir: repo.dir,
    server,
    env,
    argv,
    async runInProcess(run = {}) {
      let out = '';
      const io: CliIo = {
        argv,
        env,
        cwd: repo.dir,
        stdout: { write: (t: string) => (out += t) },
        stderr: { write: (t: string) => (out += t) },
        readStdin: async () => undefined,
      };
      const clock = new FakeClock();
      const code = await runLocal(
        io,
        { task, repo: repo.dir, set: sets },
        {
          createLlm: (config, llmEnv, logger) =>
            createOpenAiLlm(config, {
              env: llmEnv,
              logger,
              clock,
              timeoutMs: run.timeoutMs ?? 2000,
            }),
          clock,
          graceMs: 5000,
        },
      );
      return { code, out };
    },
    spawnChild() {
      let output = '';
      const child = spawn(process.execPath, ['--import', 'tsx', BIN, ...argv], {
        cwd: ROOT,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
      child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
      const exit = new Promise<number | null>((resolve) =>
        child.on('close', (code, signal) => resolve(code ?? (signal ? 128 + 15 : null))),
      );
      return { child, output: () => output, exit };
    },
    async state() {
      const files = await readTree(stateDir);
      const notes = Object.fromEntries(
        Object.entries(files).filter(([name]) => name.startsWith('notes/')),
      );
      const progress = notes['notes/progress-1.md'];
      const runsText = files['runs.json'];
      const history = Object.entries(files)
        .filter(([name]) => name.endsWith('.jsonl'))
        .reduce((sum, [, text]) => sum + lines(text), 0);
      return {
        progressState: progress ? parseMarker(progress)?.state : undefined,
        notes,
        runs: runsText ? (JSON.parse(runsText) as { runs: { state: string }[] }).runs : [],
        historyEntries: history,
        result: files['result.json']
          ? (JSON.parse(files['result.json']) as Record<string, unknown>)
          : undefined,
        files,
      };
    },
    async close() {
      await server.close();
      await repo.cleanup();
    },
  };
}
