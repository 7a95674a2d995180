import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Clock } from '../../core/clock.ts';
import type { VersionPin } from '../../core/environment.ts';
import { CancelledError } from '../../errors/errors.ts';
import { isolatedRequest, type CommandIsolation } from '../../core/isolation.ts';
import {
  tail,
  type CommandRequest,
  type CommandResult,
  type Shell,
} from '../../core/shell-port.ts';
import { shellQuote } from '../../shell/quote.ts';
import {
  olderNodeBin,
  olderNodeDir,
  olderNodeFor,
  olderNodeInstall,
  type OlderNode,
} from './kinds/node/older-node.ts';
import { testsRun } from './tests-run.ts';

/**
 * The second try of a Node project's tests that ran none on the Node on
 * PATH: when the project's own pins (its CI matrix, an exact `.nvmrc` or
 * volta version, an `engines.node` upper bound) stop at an older major, that
 * major is installed from the npm registry into the tool cache
 * (kinds/node/older-node.ts) and the tests run once more with it first on
 * PATH. Either way the result says which Node the tests need. `mr-agent
 * setup` runs it after its own test run (setup-checkout.ts); the job's
 * environment step through `olderNodeForTests`, which runs the tests on the
 * Node on PATH first, only for a project whose pins stop below it.
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
  /** Who runs the commands (the job's command user); absent: the agent's own user. */
  isolation?: CommandIsolation;
}

export interface OlderNodeTests {
  /** The Node on PATH, by major. */
  current: number;
  node: OlderNode;
  /** The install of `node@<major>`, when it was not in the tool cache yet. */
  install?: {
    command: string;
    exitCode: number | undefined;
    durationMs: number;
    /** The end of what the install printed (for the log when it failed). */
    outputTail: string;
  };
  /** Undefined when the install left no Node to run the tests with. */
  tests?: { exitCode: number | undefined; testsRun: number | undefined };
  /** The folder put first on PATH for the tests (the older `node`, the host's package managers). */
  bin?: string;
}

/** The older Node the pins ask for, beside the Node on PATH, before anything is installed. */
export type OlderNodeCandidate = Pick<OlderNodeTests, 'current' | 'node'>;

/** One command as the input's user, in its environment. */
function run(
  input: OlderNodeTestsInput,
  request: Omit<CommandRequest, 'env' | 'signal'> & { env?: Record<string, string> },
): Promise<CommandResult> {
  return isolatedRequest(input.isolation, {
    env: input.env,
    ...request,
    ...(input.signal ? { signal: input.signal } : {}),
  })
    .then((r) => input.shell.run(r))
    .then((result) => {
      if (result.cancelled || input.signal?.aborted)
        throw new CancelledError('environment setup was cancelled', { where: request.command });
      return result;
    });
}

const outputOf = (result: CommandResult) => result.output || `${result.stdout}\n${result.stderr}`;

/** Whether a test command showed that tests run: it passed, or its summary counts some. */
export function testsRan(exitCode: number | undefined, count: number | undefined): boolean {
  return exitCode === 0 || (count ?? 0) > 0;
}

async function currentMajor(input: OlderNodeTestsInput): Promise<number | undefined> {
  const result = await run(input, {
    command: `node -e "process.stdout.write(process.versions.node)"`,
    cwd: input.cwd,
    timeoutMs: 30_000,
  });
  const major = Number(result.stdout.trim().split('.')[0]);
  return result.exitCode === 0 && Number.isInteger(major) ? major : undefined;
}

/** Undefined when the project's pins ask for no older Node than the one on PATH. */
export async function olderNodeCandidate(
  input: OlderNodeTestsInput,
): Promise<OlderNodeCandidate | undefined> {
  const current = await currentMajor(input);
  if (current === undefined) return undefined;
  const node = olderNodeFor(input.pins, current);
  return node ? { current, node } : undefined;
}

/** Undefined when the project's pins ask for no older Node than the one on PATH. */
export async function testsOnOlderNode(
  input: OlderNodeTestsInput,
  candidate?: OlderNodeCandidate,
): Promise<OlderNodeTests | undefined> {
  const wanted = candidate ?? (await olderNodeCandidate(input));
  if (!wanted) return undefined;
  const { node } = wanted;
  const dir = olderNodeDir(input.toolCache, node.major);
  const found: OlderNodeTests = { ...wanted };
  if (!existsSync(path.join(dir, 'node_modules', 'node', 'bin', 'node'))) {
    // the command user makes its own folder, so that its install may write there
    if (input.isolation?.kind === 'separate-user')
      await run(input, {
        command: `mkdir -p ${shellQuote(dir)}`,
        cwd: input.cwd,
        timeoutMs: 30_000,
      });
    else mkdirSync(dir, { recursive: true });
    const command = olderNodeInstall(dir, node.major);
    const started = input.clock.now();
    const result = await run(input, { command, cwd: dir, timeoutMs: input.timeoutMs });
    found.install = {
      command,
      exitCode: result.exitCode,
      durationMs: input.clock.now() - started,
      outputTail: tail(outputOf(result), 1000),
    };
    if (result.exitCode !== 0) return found;
  }
  const bin = olderNodeBin(dir, input.env.PATH ?? '');
  if (!bin) return found;
  found.bin = bin;
  const result = await run(input, {
    command: input.command,
    cwd: input.cwd,
    env: { ...input.env, PATH: `${bin}:${input.env.PATH ?? ''}` },
    timeoutMs: input.timeoutMs,
  });
  found.tests = { exitCode: result.exitCode, testsRun: testsRun(outputOf(result)) };
  return found;
}

/** What the job's environment step learnt of the tests and the Node they need. */
export interface OlderNodeForTests extends OlderNodeTests {
  /** The tests' run on the Node on PATH. */
  onCurrent: { exitCode: number | undefined; testsRun: number | undefined };
}

/**
 * The job's way to the same second try: only for a project whose pins stop
 * below the Node on PATH (most projects cost one `node -e`), the tests run
 * on that Node first; when they run none there, on the older one. Undefined
 * when no older Node is asked for, or the tests run on the Node on PATH.
 */
export async function olderNodeForTests(
  input: OlderNodeTestsInput,
): Promise<OlderNodeForTests | undefined> {
  const candidate = await olderNodeCandidate(input);
  if (!candidate) return undefined;
  const result = await run(input, {
    command: input.command,
    cwd: input.cwd,
    timeoutMs: input.timeoutMs,
  });
  const onCurrent = { exitCode: result.exitCode, testsRun: testsRun(outputOf(result)) };
  if (testsRan(onCurrent.exitCode, onCurrent.testsRun)) return undefined;
  const older = await testsOnOlderNode(input, candidate);
  return older && { ...older, onCurrent };
}
