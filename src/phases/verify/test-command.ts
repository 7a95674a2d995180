import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../../config/options.ts';
import type { TaskSpec } from '../../task/task-yaml.ts';

export interface TestCommand {
  command: string;
  /** Repository-relative working folder. */
  cwd: string;
  /** `detected`: the project's own CI test command (environment detection), else a guess from build files. */
  source: 'task' | 'config' | 'detected';
}

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

async function npmTest(dir: string): Promise<string | undefined> {
  const text = await readText(path.join(dir, 'package.json'));
  if (!text) return undefined;
  try {
    const pkg = JSON.parse(text) as { scripts?: Record<string, string> };
    const test = pkg.scripts?.test;
    return test && test.trim() !== NPM_DEFAULT_TEST ? 'npm test' : undefined;
  } catch {
    return undefined;
  }
}

async function pythonTest(dir: string): Promise<string | undefined> {
  for (const file of ['pytest.ini', 'conftest.py', 'tox.ini']) {
    if (await exists(path.join(dir, file))) return 'python -m pytest';
  }
  const pyproject = await readText(path.join(dir, 'pyproject.toml'));
  if (pyproject?.includes('[tool.pytest')) return 'python -m pytest';
  const setupCfg = await readText(path.join(dir, 'setup.cfg'));
  if (setupCfg?.includes('[tool:pytest]')) return 'python -m pytest';
  if (pyproject !== undefined && (await exists(path.join(dir, 'tests')))) return 'python -m pytest';
  return undefined;
}

/** A test command guessed from the repository's build files, if any. */
export async function detectTestCommand(dir: string): Promise<string | undefined> {
  const detectors: Array<() => Promise<string | undefined>> = [
    () => npmTest(dir),
    () => pythonTest(dir),
    async () => ((await exists(path.join(dir, 'go.mod'))) ? 'go test ./...' : undefined),
    async () => ((await exists(path.join(dir, 'pom.xml'))) ? 'mvn -q test' : undefined),
    async () => {
      const gradle =
        (await exists(path.join(dir, 'build.gradle'))) ||
        (await exists(path.join(dir, 'build.gradle.kts')));
      if (!gradle) return undefined;
      return (await exists(path.join(dir, 'gradlew'))) ? './gradlew test' : 'gradle test';
    },
    async () => ((await exists(path.join(dir, 'Cargo.toml'))) ? 'cargo test' : undefined),
    async () => {
      const makefile = await readText(path.join(dir, 'Makefile'));
      return makefile && /^test:/m.test(makefile) ? 'make test' : undefined;
    },
  ];
  for (const detect of detectors) {
    const command = await detect();
    if (command) return command;
  }
  return undefined;
}

/**
 * Task YAML `task.test`, then `execution.test_command`, then the project's
 * own test command (`projectTest`: environment detection's `test_command`,
 * read from CI), then a guess from the build files.
 */
export async function resolveTestCommand(
  task: TaskSpec,
  config: Config,
  repoDir: string,
  projectTest?: string,
): Promise<TestCommand | undefined> {
  if (task.test) return { command: task.test.command, cwd: task.test.cwd, source: 'task' };
  if (config.execution.test_command)
    return { command: config.execution.test_command, cwd: '.', source: 'config' };
  if (projectTest) return { command: projectTest, cwd: '.', source: 'detected' };
  const detected = await detectTestCommand(repoDir);
  return detected ? { command: detected, cwd: '.', source: 'detected' } : undefined;
}
