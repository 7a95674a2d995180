import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** The folder holding the fake codex, claude and gemini executables. */
export const FAKE_BIN = path.resolve('test/fixtures/bin');

/** Secrets the host has that must never reach a worker. */
export const HOST_SECRETS = {
  CI_JOB_TOKEN: 'ci-job-token-value-123',
  MR_AGENT_GITLAB_TOKEN: 'glpat-host-token-456',
  OPENAI_API_KEY: 'sk-meta-llm-key-789',
};

export async function tempDir(prefix: string): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), `mr-agent-${prefix}-`));
}

/** A host environment: the fakes first on PATH, an empty HOME, and secrets that must not leak. */
export function hostEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: `${FAKE_BIN}${path.delimiter}${process.env.PATH ?? ''}`,
    HOME: home,
    LANG: 'C.UTF-8',
    ...HOST_SECRETS,
    ...extra,
  };
}

export interface FakeCall {
  cli: string;
  argv: string[];
  flags: Record<string, string | boolean>;
  cwd: string;
  env: Record<string, string>;
  prompt: string;
  signal?: string;
}

/** The invocations a fake CLI recorded in its FAKE_CLI_LOG file. */
export async function fakeCalls(logFile: string): Promise<FakeCall[]> {
  const text = await readFile(logFile, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as FakeCall);
}

/** The credential each fake CLI accepts, as a worker env entry. */
export const CREDENTIAL: Record<string, Record<string, string>> = {
  'codex-cli': { CODEX_API_KEY: 'codex-key-abcdef' },
  'claude-code': { ANTHROPIC_API_KEY: 'sk-ant-key-abcdef' },
  'gemini-cli': { GEMINI_API_KEY: 'gemini-key-abcdef' },
};
