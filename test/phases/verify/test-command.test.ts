import { expect } from 'chai';
import type { EnvironmentHandoff } from '../../../src/core/environment.ts';
import { loadConfig } from '../../../src/config/load.ts';
import {
  detectEnvironmentTestCommand,
  detectTestCommand,
} from '../../../src/phases/environment/test-command.ts';
import { resolveTestCommand } from '../../../src/phases/verify/test-command.ts';
import { CompletionAssessment } from '../../../src/core/completion.ts';
import { taskFromText } from '../../../src/task/task-yaml.ts';
import { makeTempRepo } from '../../support/temp-repo.ts';
import { assessment } from '../../support/plans.ts';

describe('verify: test command and completion assessment', () => {
  const detections: Array<[string, Record<string, string>, string | undefined]> = [
    ['npm test script', { 'package.json': '{"scripts":{"test":"mocha"}}' }, 'npm test'],
    [
      'npm default test script is ignored',
      { 'package.json': '{"scripts":{"test":"echo \\"Error: no test specified\\" && exit 1"}}' },
      undefined,
    ],
    ['pytest.ini', { 'pytest.ini': '[pytest]' }, 'python -m pytest'],
    [
      'pyproject with tool.pytest',
      { 'pyproject.toml': '[tool.pytest.ini_options]' },
      'python -m pytest',
    ],
    ['go.mod', { 'go.mod': 'module x' }, 'go test ./...'],
    ['pom.xml', { 'pom.xml': '<project/>' }, 'mvn -q test'],
    ['gradle wrapper', { 'build.gradle': '', gradlew: '' }, './gradlew test'],
    ['Makefile test target', { Makefile: 'build:\n\ttrue\ntest:\n\ttrue\n' }, 'make test'],
    ['nothing', { 'README.md': '' }, undefined],
  ];
  for (const [label, files, expected] of detections) {
    it(`detects: ${label}`, async () => {
      const repo = await makeTempRepo(files, { git: false });
      try {
        expect(await detectTestCommand(repo.dir)).to.equal(expected);
      } finally {
        await repo.cleanup();
      }
    });
  }

  it('prefers Task YAML task.test, then execution.test_command, then the project CI test command, then detection', async () => {
    const repo = await makeTempRepo({ 'go.mod': 'module x' }, { git: false });
    try {
      const base = taskFromText('x');
      const plain = (await loadConfig({ env: {}, file: null })).config;
      const configured = (
        await loadConfig({ env: { MR_AGENT_TEST_COMMAND: 'make check' }, file: null })
      ).config;
      const fromTask = { ...base, test: { command: 'npm run unit', cwd: 'pkg' } };
      expect(await resolveTestCommand(fromTask, configured, repo.dir)).to.deep.equal({
        command: 'npm run unit',
        cwd: 'pkg',
        source: 'task',
      });
      expect(await resolveTestCommand(base, configured, repo.dir)).to.deep.equal({
        command: 'make check',
        cwd: '.',
        source: 'config',
      });
      // issue #20: the command the project's CI runs reaches the hand-off and comes before a guess
      const handoff = (command: string) =>
        ({
          name: 'go',
          setup_status: 'success',
          detected_files: [],
          test_command: { command, cwd: '.' },
        }) as unknown as EnvironmentHandoff;
      expect(
        await resolveTestCommand(base, plain, repo.dir, handoff('go test -race ./...')),
      ).to.deep.equal({
        command: 'go test -race ./...',
        cwd: '.',
        source: 'detected',
      });
      expect(
        await resolveTestCommand(base, configured, repo.dir, handoff('go test ./...')),
      ).to.include({
        source: 'config',
      });
      expect(await resolveTestCommand(base, plain, repo.dir)).to.deep.equal({
        command: 'go test ./...',
        cwd: '.',
        source: 'detected',
      });
    } finally {
      await repo.cleanup();
    }
  });

  const polyglot = {
    'package.json': '{"scripts":{"test":"jest"}}',
    'pnpm-lock.yaml': '',
    'requirements.txt': 'pytest\n',
    'pytest.ini': '[pytest]',
    'go.mod': 'module x',
  };
  const selected: Array<[string, string, string | undefined]> = [
    ['python', 'pip', 'python -m pytest'],
    ['miniforge', 'conda', 'python -m pytest'],
    ['node', 'pnpm', 'pnpm test'],
    ['node', 'yarn', 'yarn test'],
    ['node', 'npm', 'npm test'],
    ['go', 'go', 'go test ./...'],
    ['java', 'maven', undefined],
  ];
  for (const [name, packageManager, expected] of selected) {
    it(`issue 17 item 4: in a Python + Node + Go repository the selected ${name} (${packageManager}) environment gives ${expected ?? 'no test command'}`, async () => {
      const repo = await makeTempRepo(polyglot, { git: false });
      try {
        expect(
          await detectTestCommand(repo.dir, { name: name as 'python', packageManager }),
        ).to.equal(expected);
      } finally {
        await repo.cleanup();
      }
    });
  }

  it('issue 17 item 4: a project in a sub-folder is tested there; the root Makefile target is the fallback', async () => {
    const repo = await makeTempRepo(
      {
        'backend/pyproject.toml': '[tool.pytest.ini_options]',
        'web/package.json': '{"scripts":{"test":"vitest"}}',
        Makefile: 'test:\n\ttrue\n',
      },
      { git: false },
    );
    try {
      const python = { name: 'python' as const, packageManager: 'pip' };
      expect(
        await detectEnvironmentTestCommand(repo.dir, { ...python, projectDirs: ['backend'] }),
      ).to.deep.equal({ command: 'python -m pytest', cwd: 'backend' });
      expect(
        await detectEnvironmentTestCommand(repo.dir, { ...python, projectDirs: ['web'] }),
      ).to.deep.equal({ command: 'make test', cwd: '.' });
    } finally {
      await repo.cleanup();
    }
  });

  it('issue 17 item 4: with an environment hand-off only its test command is used, never a guess for another environment', async () => {
    const repo = await makeTempRepo(polyglot, { git: false });
    try {
      const base = taskFromText('x');
      const plain = (await loadConfig({ env: {}, file: null })).config;
      const handoff = {
        environment_ready: true,
        environment_name: 'python' as const,
        setup_status: 'success' as const,
        errors: [],
      };
      expect(
        await resolveTestCommand(base, plain, repo.dir, {
          ...handoff,
          test_command: { command: 'python -m pytest', cwd: '.' },
        }),
      ).to.deep.equal({ command: 'python -m pytest', cwd: '.', source: 'detected' });
      expect(await resolveTestCommand(base, plain, repo.dir, handoff)).to.equal(undefined);
      expect(await resolveTestCommand(base, plain, repo.dir)).to.deep.include({
        command: 'npm test',
      });
    } finally {
      await repo.cleanup();
    }
  });

  it('the completion assessment is seed 002 meta §5 plus all_criteria_satisfied', () => {
    expect(CompletionAssessment.parse(assessment(true))).to.deep.equal(assessment(true));
    const { all_criteria_satisfied: _drop, ...without } = assessment(true);
    expect(CompletionAssessment.safeParse(without).success).to.equal(false);
    expect(
      CompletionAssessment.safeParse({ ...assessment(true), type: 'next_action' }).success,
    ).to.equal(false);
  });
});
