import { expect } from 'chai';
import { loadConfig } from '../../../src/config/load.ts';
import { detectTestCommand, resolveTestCommand } from '../../../src/phases/verify/test-command.ts';
import { CompletionAssessment } from '../../../src/phases/verify/schema.ts';
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
      // issue #20: the command the project's CI runs comes before a guess from the build files
      expect(await resolveTestCommand(base, plain, repo.dir, 'go test -race ./...')).to.deep.equal({
        command: 'go test -race ./...',
        cwd: '.',
        source: 'detected',
      });
      expect(await resolveTestCommand(base, configured, repo.dir, 'go test ./...')).to.include({
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

  it('the completion assessment is seed 002 meta §5 plus all_criteria_satisfied', () => {
    expect(CompletionAssessment.parse(assessment(true))).to.deep.equal(assessment(true));
    const { all_criteria_satisfied: _drop, ...without } = assessment(true);
    expect(CompletionAssessment.safeParse(without).success).to.equal(false);
    expect(
      CompletionAssessment.safeParse({ ...assessment(true), type: 'next_action' }).success,
    ).to.equal(false);
  });
});
