import path from 'node:path';
import type { EnvironmentName, EnvironmentTestCommand } from '../../core/environment.ts';
import { exists, readText } from './kinds/build-files.ts';
import type { TestDetector } from './kinds/kind.ts';
import { ENVIRONMENT_KINDS, kindOf } from './registry.ts';

const cargoTest: TestDetector = async (dir) =>
  (await exists(path.join(dir, 'Cargo.toml'))) ? 'cargo test' : undefined;
const makeTest: TestDetector = async (dir) => {
  const makefile = await readText(path.join(dir, 'Makefile'));
  return makefile && /^test:/m.test(makefile) ? 'make test' : undefined;
};

/** The selected environment, as the environment phase hands it over. */
export interface TestEnvironment {
  name: EnvironmentName;
  packageManager?: string | undefined;
}

/** Every environment's guesses, by their rank, then Cargo's (no environment of its own). */
function anyEnvironmentDetectors(): TestDetector[] {
  const ranked = [...ENVIRONMENT_KINDS].sort((a, b) => a.testGuessRank - b.testGuessRank);
  return [...new Set([...ranked.flatMap((k) => k.testDetectors(undefined)), cargoTest])];
}

async function firstOf(detectors: readonly TestDetector[], dir: string) {
  for (const detect of detectors) {
    const command = await detect(dir);
    if (command) return command;
  }
  return undefined;
}

/**
 * A test command guessed from the repository's build files, if any. With a
 * selected environment only that environment's build files count (a Python
 * environment never gets `npm test`), then a `make test` target; without
 * one, every environment's guesses in turn, then Cargo and make.
 */
export async function detectTestCommand(
  dir: string,
  environment?: TestEnvironment,
): Promise<string | undefined> {
  const detectors = environment
    ? [...kindOf(environment.name).testDetectors(environment.packageManager), makeTest]
    : [...anyEnvironmentDetectors(), makeTest];
  return firstOf(detectors, dir);
}

/**
 * The test command of the selected environment: its projects' folders first
 * (the shallowest that has one, run there), then the repository root.
 */
export async function detectEnvironmentTestCommand(
  repoDir: string,
  environment: TestEnvironment & { projectDirs?: readonly string[] },
): Promise<EnvironmentTestCommand | undefined> {
  const own = kindOf(environment.name).testDetectors(environment.packageManager);
  for (const cwd of environment.projectDirs ?? []) {
    if (cwd === '.') continue;
    const command = await firstOf(own, path.join(repoDir, cwd));
    if (command) return { command, cwd };
  }
  const command = await detectTestCommand(repoDir, environment);
  return command ? { command, cwd: '.' } : undefined;
}
