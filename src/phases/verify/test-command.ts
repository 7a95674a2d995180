import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../../config/options.ts';
import type { TaskSpec } from '../../task/task-yaml.ts';
import type {
  EnvironmentHandoff,
  EnvironmentName,
  EnvironmentTestCommand,
} from '../../core/environment.ts';

export interface TestCommand {
  command: string;
  /** Repository-relative working folder. */
  cwd: string;
  /** `detected`: the project's own CI test command (environment detection), else a guess from build files. */
  source: 'task' | 'config' | 'detected';
}

type Detector = (dir: string) => Promise<string | undefined>;

const NPM_DEFAULT_TEST = 'echo "Error: no test specified" && exit 1';

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

async function readText(file: string): Promise<string | undefined> {
  return readFile(file, 'utf8').catch(() => undefined);
}

/** `npm test`, `pnpm test` or `yarn test`: the selected package manager runs the script. */
function nodeTest(packageManager: string | undefined): Detector {
  const runner = packageManager === 'pnpm' || packageManager === 'yarn' ? packageManager : 'npm';
  return async (dir) => {
    const text = await readText(path.join(dir, 'package.json'));
    if (!text) return undefined;
    try {
      const pkg = JSON.parse(text) as { scripts?: Record<string, string> };
      const test = pkg.scripts?.test;
      return test && test.trim() !== NPM_DEFAULT_TEST ? `${runner} test` : undefined;
    } catch {
      return undefined;
    }
  };
}

const pythonTest: Detector = async (dir) => {
  for (const file of ['pytest.ini', 'conftest.py', 'tox.ini']) {
    if (await exists(path.join(dir, file))) return 'python -m pytest';
  }
  const pyproject = await readText(path.join(dir, 'pyproject.toml'));
  if (pyproject?.includes('[tool.pytest')) return 'python -m pytest';
  const setupCfg = await readText(path.join(dir, 'setup.cfg'));
  if (setupCfg?.includes('[tool:pytest]')) return 'python -m pytest';
  if (pyproject !== undefined && (await exists(path.join(dir, 'tests')))) return 'python -m pytest';
  return undefined;
};

const goTest: Detector = async (dir) =>
  (await exists(path.join(dir, 'go.mod'))) ? 'go test ./...' : undefined;
const mavenTest: Detector = async (dir) =>
  (await exists(path.join(dir, 'pom.xml'))) ? 'mvn -q test' : undefined;
const gradleTest: Detector = async (dir) => {
  const gradle =
    (await exists(path.join(dir, 'build.gradle'))) ||
    (await exists(path.join(dir, 'build.gradle.kts')));
  if (!gradle) return undefined;
  return (await exists(path.join(dir, 'gradlew'))) ? './gradlew test' : 'gradle test';
};
const cargoTest: Detector = async (dir) =>
  (await exists(path.join(dir, 'Cargo.toml'))) ? 'cargo test' : undefined;
const makeTest: Detector = async (dir) => {
  const makefile = await readText(path.join(dir, 'Makefile'));
  return makefile && /^test:/m.test(makefile) ? 'make test' : undefined;
};

/** The selected environment, as the environment phase hands it over. */
export interface TestEnvironment {
  name: EnvironmentName;
  packageManager?: string | undefined;
}

/** Detectors of each environment; gradle first when the package manager says so. */
function detectorsOf(environment: TestEnvironment): Detector[] {
  switch (environment.name) {
    case 'node':
      return [nodeTest(environment.packageManager)];
    case 'python':
    case 'miniforge':
      return [pythonTest];
    case 'go':
      return [goTest];
    case 'java':
      return environment.packageManager === 'gradle'
        ? [gradleTest, mavenTest]
        : [mavenTest, gradleTest];
  }
}

async function firstOf(detectors: Detector[], dir: string): Promise<string | undefined> {
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
 * one, the first of npm, pytest, Go, Maven, Gradle, Cargo, make.
 */
export async function detectTestCommand(
  dir: string,
  environment?: TestEnvironment,
): Promise<string | undefined> {
  const detectors = environment
    ? [...detectorsOf(environment), makeTest]
    : [nodeTest('npm'), pythonTest, goTest, mavenTest, gradleTest, cargoTest, makeTest];
  return firstOf(detectors, dir);
}

/**
 * The test command of the selected environment (issue 17 item 4): its
 * projects' folders first (the shallowest that has one, run there), then
 * the repository root.
 */
export async function detectEnvironmentTestCommand(
  repoDir: string,
  environment: TestEnvironment & { projectDirs?: readonly string[] },
): Promise<EnvironmentTestCommand | undefined> {
  const own = detectorsOf(environment);
  for (const cwd of environment.projectDirs ?? []) {
    if (cwd === '.') continue;
    const command = await firstOf(own, path.join(repoDir, cwd));
    if (command) return { command, cwd };
  }
  const command = await detectTestCommand(repoDir, environment);
  return command ? { command, cwd: '.' } : undefined;
}

/**
 * Task YAML `task.test`, then `execution.test_command`, then the environment
 * hand-off's test command; detection for any environment only when there is
 * no hand-off (no environment phase).
 */
export async function resolveTestCommand(
  task: TaskSpec,
  config: Config,
  repoDir: string,
  environment?: EnvironmentHandoff,
): Promise<TestCommand | undefined> {
  if (task.test) return { command: task.test.command, cwd: task.test.cwd, source: 'task' };
  if (config.execution.test_command)
    return { command: config.execution.test_command, cwd: '.', source: 'config' };
  if (environment)
    return environment.test_command
      ? { ...environment.test_command, source: 'detected' }
      : undefined;
  const detected = await detectTestCommand(repoDir);
  return detected ? { command: detected, cwd: '.', source: 'detected' } : undefined;
}
