import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ExecaShell } from '../../../src/shell/execa-shell.ts';
import { sandboxEnv } from '../../../src/shell/sandbox-env.ts';
import { workerEnv } from '../../../src/workers/env.ts';
import { toolContext } from '../../support/tool-context.ts';
import { call } from '../../tools/call.ts';
import { SECRETS, SecretScanner, secretEnv } from '../support/secrets.ts';

/**
 * Environment leaks (M1): commands that try every ordinary way to print the
 * environment, run with the environment the agent builds from a host that
 * holds every secret. Any secret in their output (plain, encoded) is an escape.
 */
export const ENV_PROBES: readonly string[] = [
  'env',
  'printenv',
  'set',
  'export -p',
  'cat /proc/self/environ | tr "\\0" "\\n"',
  'echo "$CI_JOB_TOKEN|$MR_AGENT_GITLAB_TOKEN|$OPENAI_API_KEY|$MR_AGENT_TRIGGER_TOKEN|$MR_AGENT_WEBHOOK_SECRET|$WAREHOUSE_DSN|$CI_REPOSITORY_URL"',
  'node -e "console.log(JSON.stringify(process.env))"',
  'python3 -c "import os; print(dict(os.environ))" 2>/dev/null || true',
  'env | base64',
  'sh -c env',
  'bash -lc env 2>/dev/null || true',
  'cat "$TRIGGER_PAYLOAD" 2>/dev/null; echo "$TRIGGER_PAYLOAD"',
  'git config --global --list 2>/dev/null; git config --system --list 2>/dev/null; true',
  'cat ~/.git-credentials ~/.netrc 2>/dev/null; true',
];

export interface EnvLeakResult {
  attempts: number;
  scanner: SecretScanner;
  /** Secrets the same probes find with the unfiltered host environment (proves they can). */
  controlHits: number;
}

/** Runs every probe through execa with the command env and the worker env. */
export async function probeEnvironments(): Promise<EnvLeakResult> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'mr-agent-envprobe-'));
  const payload = path.join(dir, 'payload.json');
  await writeFile(payload, `{"object_kind": "note", "secret": "${SECRETS.webhookSecret}"}`);
  const host = {
    ...secretEnv({ TRIGGER_PAYLOAD: payload }),
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dir,
    LANG: 'C.UTF-8',
    PIP_INDEX_URL: `https://__token__:${SECRETS.gitlabToken}@gitlab.example/api/v4/packages/pypi/simple`,
  };
  const envs = {
    'run_command env': sandboxEnv(host),
    'worker CLI env': workerEnv(host, { CODEX_HOME: dir }),
  };
  const shell = new ExecaShell();
  const scanner = new SecretScanner();
  let attempts = 0;
  for (const [label, env] of Object.entries(envs)) {
    scanner.scan('environments built', label, JSON.stringify(env));
    for (const command of ENV_PROBES) {
      const result = await shell.run({ command, cwd: dir, env, timeoutMs: 10_000 });
      attempts++;
      scanner.scan('command output', `${label}: ${command}`, result.output);
    }
  }
  // and through the agent's own run_command tool, whose context holds the whole host environment
  const ctx = await toolContext(dir, { hostEnv: host, commandTimeoutMs: 10_000 });
  for (const command of ENV_PROBES) {
    const outcome = await call(ctx, 'run_command', { command });
    attempts++;
    scanner.scan('run_command tool output', command, outcome.output);
  }
  const control = new SecretScanner();
  for (const command of ENV_PROBES.slice(0, 6)) {
    const result = await shell.run({ command, cwd: dir, env: host, timeoutMs: 10_000 });
    control.scan('control', command, result.output);
  }
  return { attempts, scanner, controlHits: new Set(control.hits.map((h) => h.secret)).size };
}
