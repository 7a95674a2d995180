import { expect } from 'chai';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { parseTaskYaml } from '../../../src/task/task-yaml.ts';
import { runCli, type CliRun } from '../../cli/helpers.ts';
import { runBinary } from '../support/bundle.ts';
import { BaseCase, expand, parseCase } from './case.ts';
import { expectCleanMessage } from './checks.ts';

/**
 * Corpus areas run through the CLI: `main(io)` in-process, and, for cases
 * marked `binary: true`, the bundled binary as a child process too.
 */
const StringMap = z.record(z.string(), z.unknown());

const CliCase = BaseCase.extend({
  /** Exit code expected for `error` (2: usage/configuration; 1: run failure). */
  exit: z.number().int().default(2),
  binary: z.boolean().default(false),
});

const madeDirs: string[] = [];

async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `mr-agent-corpus-${prefix}-`));
  madeDirs.push(dir);
  return dir;
}

/** Removes every folder the CLI areas made for their cases. */
export async function removeCaseDirs(): Promise<void> {
  const dirs = madeDirs.splice(0);
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
}

async function writeTree(dir: string, files: Record<string, string>): Promise<void> {
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(dir, name);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, content);
  }
}

interface Invocation {
  argv: string[];
  env: Record<string, string>;
  cwd: string;
  stdin?: string;
}

/** Checks one CLI run against the case's outcome class. */
function checkRun(run: CliRun, c: z.infer<typeof CliCase>, what: string, json = false): string {
  if (c.expect === 'error' && json) {
    expect(run.code, `${what}: exit code`).to.equal(c.exit);
    const answer = JSON.parse(run.stdout) as { ok: boolean; error: string; details: string[] };
    expect(answer.ok).to.equal(false);
    expectCleanMessage([answer.error, ...answer.details].join('\n'), c.match, `${what} JSON`);
    return `exit ${run.code}: ${answer.error}`;
  }
  if (c.expect === 'error') {
    expect(run.code, `${what}: exit code (stderr: ${run.stderr.slice(0, 500)})`).to.equal(c.exit);
    expect(run.stderr, `${what}: stderr starts with "mr-agent: " or "error: "`).to.match(
      /^(mr-agent: |error: )/,
    );
    expectCleanMessage(run.stderr, c.match, `${what} stderr`);
    return `exit ${run.code}: ${run.stderr.split('\n')[0]}`;
  }
  expect(run.code, `${what}: exit code (stderr: ${run.stderr.slice(0, 500)})`).to.equal(0);
  expectCleanMessage(run.stdout, c.match, `${what} stdout`);
  return `exit 0`;
}

async function runBoth(inv: Invocation, c: z.infer<typeof CliCase>): Promise<string> {
  const run = await runCli(inv.argv, {
    env: inv.env,
    cwd: inv.cwd,
    ...(inv.stdin === undefined ? {} : { stdin: inv.stdin }),
  });
  const json = inv.argv.includes('--json');
  const seen = checkRun(run, c, 'main(io)', json);
  if (c.binary) {
    const child = await runBinary(inv.argv, {
      env: inv.env,
      cwd: inv.cwd,
      ...(inv.stdin === undefined ? {} : { stdin: inv.stdin }),
    });
    expect(child.signal, 'binary killed by a signal').to.equal(null);
    const result = { code: child.code ?? -1, stdout: child.stdout, stderr: child.stderr };
    checkRun(result, c, 'binary', json);
  }
  return seen;
}

/** `.mr-agent.yml` through `mr-agent config check --repo <dir>`. */
const ConfigFileCase = CliCase.extend({
  text: z.unknown(),
  sets: z.array(z.string()).default([]),
});

export async function runConfigFileCase(raw: unknown, file: string): Promise<string> {
  const c = parseCase(ConfigFileCase, raw, file);
  const dir = await tempDir('config');
  await writeFile(path.join(dir, '.mr-agent.yml'), String(expand(c.text)));
  const argv = ['config', 'check', '--repo', dir, ...c.sets.flatMap((s) => ['--set', s])];
  return runBoth({ argv, env: {}, cwd: dir }, c);
}

/** Task YAML through `mr-agent run --task-file` or stdin; `ok` cases through parseTaskYaml. */
const TaskCase = CliCase.extend({
  text: z.unknown(),
  via: z.enum(['file', 'stdin']).default('file'),
  env: z.record(z.string(), z.string()).default({}),
  /** For `ok`: fields of the parsed TaskSpec that must come through unchanged. */
  fields: StringMap.optional(),
});

export async function runTaskCase(raw: unknown, file: string): Promise<string> {
  const c = parseCase(TaskCase, raw, file);
  const text = String(expand(c.text));
  if (c.expect === 'ok') {
    const task = parseTaskYaml(text, 'task.yaml', c.env) as unknown as Record<string, unknown>;
    for (const [key, value] of Object.entries(c.fields ?? {}))
      expect(task[key], `TaskSpec.${key}`).to.deep.equal(expand(value));
    return 'parsed';
  }
  const dir = await tempDir('task');
  if (c.via === 'stdin') return runBoth({ argv: ['run'], env: c.env, cwd: dir, stdin: text }, c);
  await writeFile(path.join(dir, 'task.yaml'), text);
  return runBoth({ argv: ['run', '--task-file', 'task.yaml'], env: c.env, cwd: dir }, c);
}

/** Environment variables (CI variables and the env-var config sources). */
const EnvCase = CliCase.extend({
  env: StringMap,
  argv: z.array(z.string()).default(['config', 'check']),
  files: z.record(z.string(), z.string()).default({}),
});

export async function runEnvCase(raw: unknown, file: string): Promise<string> {
  const c = parseCase(EnvCase, raw, file);
  const dir = await tempDir('env');
  await writeTree(dir, c.files);
  const env = Object.fromEntries(
    Object.entries(expand(c.env) as Record<string, unknown>).map(([k, v]) => [k, String(v)]),
  );
  return runBoth({ argv: c.argv, env, cwd: dir }, c);
}

/** Command lines: argv and stdin as given. */
const ArgvCase = CliCase.extend({
  argv: z.array(z.unknown()),
  stdin: z.unknown().optional(),
  env: z.record(z.string(), z.string()).default({}),
});

export async function runArgvCase(raw: unknown, file: string): Promise<string> {
  const c = parseCase(ArgvCase, raw, file);
  const dir = await tempDir('argv');
  const argv = c.argv.map((a) => String(expand(a)));
  return runBoth(
    {
      argv,
      env: c.env,
      cwd: dir,
      ...(c.stdin === undefined ? {} : { stdin: String(expand(c.stdin)) }),
    },
    c,
  );
}

/** Repository files the agent reads (manifests), through `mr-agent detect --json`. */
const RepoCase = CliCase.extend({
  files: z.record(z.string(), z.unknown()),
  environment: z.string().optional(),
});

export async function runRepoCase(raw: unknown, file: string): Promise<string> {
  const c = parseCase(RepoCase, raw, file);
  const dir = await tempDir('repo');
  const files = Object.fromEntries(
    Object.entries(c.files).map(([name, content]) => [name, String(expand(content))]),
  );
  await writeTree(dir, files);
  const json = await runCli(['detect', dir, '--json'], { cwd: dir });
  expect(json.code, `detect --json exit code (stderr: ${json.stderr.slice(0, 300)})`).to.equal(0);
  // JSON is data for programs: it must parse; the human text must be clean
  const detection = JSON.parse(json.stdout) as { environment_type: string };
  if (c.environment) expect(detection.environment_type).to.equal(c.environment);
  const text = await runCli(['detect', dir], { cwd: dir });
  checkRun(text, c, 'detect (text)');
  return `exit 0: ${detection.environment_type}`;
}
