import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Clock } from '../../core/clock.ts';
import type { VersionPin } from '../../core/environment.ts';
import type { Shell } from '../../core/shell-port.ts';
import {
  olderNodeBin,
  olderNodeDir,
  olderNodeFor,
  olderNodeInstall,
  type OlderNode,
} from './kinds/node/older-node.ts';
import { testsRun } from './tests-run.ts';

/**
 * `mr-agent setup`'s second try of a Node project's tests that ran none on
 * the Node on PATH: when the project's own pins (its CI matrix, an exact
 * `.nvmrc` or volta version, an `engines.node` upper bound) stop at an
 * older major, that major is installed from the npm registry into the tool
 * cache (kinds/node/older-node.ts) and the tests run once more with it first
 * on PATH. Either way the result says which Node the tests need.
 */

export interface OlderNodeTestsInput {
  shell: Shell;
  clock: Clock;
  /** The test command's environment (PATH included). */
  env: Record<string, string>;
  command: string;
  cwd: string;
  pins: readonly VersionPin[];
  toolCache: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface OlderNodeTests {
  /** The Node on PATH, by major. */
  current: number;
  node: OlderNode;
  /** The install of `node@<major>`, when it was not in the tool cache yet. */
  install?: { command: string; exitCode: number | undefined; durationMs: number };
  /** Undefined when the install left no Node to run the tests with. */
  tests?: { exitCode: number | undefined; testsRun: number | undefined };
}

async function currentMajor(input: OlderNodeTestsInput): Promise<number | undefined> {
  const result = await input.shell.run({
    command: `node -e "process.stdout.write(process.versions.node)"`,
    cwd: input.cwd,
    env: input.env,
    timeoutMs: 30_000,
    ...(input.signal ? { signal: input.signal } : {}),
  });
  const major = Number(result.stdout.trim().split('.')[0]);
  return result.exitCode === 0 && Number.isInteger(major) ? major : undefined;
}

/** Undefined when the project's pins ask for no older Node than the one on PATH. */
export async function testsOnOlderNode(
  input: OlderNodeTestsInput,
): Promise<OlderNodeTests | undefined> {
  const current = await currentMajor(input);
  if (current === undefined) return undefined;
  const node = olderNodeFor(input.pins, current);
  if (!node) return undefined;
  const dir = olderNodeDir(input.toolCache, node.major);
  const found: OlderNodeTests = { current, node };
  if (!existsSync(path.join(dir, 'node_modules', 'node', 'bin', 'node'))) {
    mkdirSync(dir, { recursive: true });
    const command = olderNodeInstall(dir, node.major);
    const started = input.clock.now();
    const result = await input.shell.run({
      command,
      cwd: dir,
      env: input.env,
      timeoutMs: input.timeoutMs,
      ...(input.signal ? { signal: input.signal } : {}),
    });
    found.install = { command, exitCode: result.exitCode, durationMs: input.clock.now() - started };
    if (result.exitCode !== 0) return found;
  }
  const bin = olderNodeBin(dir, input.env.PATH ?? '');
  if (!bin) return found;
  const result = await input.shell.run({
    command: input.command,
    cwd: input.cwd,
    env: { ...input.env, PATH: `${bin}:${input.env.PATH ?? ''}` },
    timeoutMs: input.timeoutMs,
    ...(input.signal ? { signal: input.signal } : {}),
  });
  found.tests = {
    exitCode: result.exitCode,
    testsRun: testsRun(result.output || `${result.stdout}\n${result.stderr}`),
  };
  return found;
}
