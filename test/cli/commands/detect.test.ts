import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import type { CliIo } from '../../../src/cli/io.ts';
import { main } from '../../../src/cli/main.ts';

const repoRoot = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const fixture = (name: string) => path.join('test/fixtures/repos', name);

async function run(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    argv,
    env: {},
    cwd: repoRoot,
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    readStdin: () => Promise.resolve(undefined),
  };
  const code = await main(io);
  return { code, stdout, stderr };
}

describe('mr-agent detect (SPEC C2)', () => {
  const expected: [string, string][] = [
    ['python-pip', 'python (pip)'],
    ['miniforge-conda', 'miniforge (conda)'],
    ['node-npm', 'node (npm)'],
    ['java-maven', 'java (maven)'],
    ['go-module', 'go (go)'],
    ['python-poetry', 'python (poetry)'],
    ['node-pnpm-workspace', 'node (pnpm)'],
    ['java-gradle-kotlin', 'java (gradle)'],
    ['polyglot-python-node', 'python (pip)'],
    ['polyglot-published', 'python (pip)'],
  ];
  for (const [name, headline] of expected) {
    it(`C2 \`mr-agent detect\` on ${name} says ${headline} and why`, async () => {
      const { code, stdout } = await run('detect', fixture(name));
      expect(code).to.equal(0);
      expect(stdout.split('\n')[0]).to.equal(`${fixture(name)}: ${headline}`);
      expect(stdout)
        .to.match(/\nwhy:\n {2}- /)
        .and.include('\nsetup commands:\n')
        .and.include('\nverification');
      expect(stdout).to.match(/ {2}- chose /);
    });
  }

  it('C2 --json prints the seed’s shape plus verification, versions and reasons', async () => {
    const { code, stdout } = await run('detect', fixture('polyglot-python-node'), '--json');
    expect(code).to.equal(0);
    const parsed = JSON.parse(stdout) as Record<string, unknown>;
    expect(parsed).to.include.keys(
      'detected_files',
      'environment_type',
      'dependencies',
      'setup_commands',
      'verification',
      'versions',
      'reasons',
    );
    expect(parsed.environment_type).to.equal('python');
    expect((parsed.reasons as string[]).join('\n')).to.include('chose python over node');
  });

  it('O12 --json and the human output list each decision with its evidence as file:line (issue #20)', async () => {
    const json = await run('detect', fixture('polyglot-published'), '--json');
    const parsed = JSON.parse(json.stdout) as {
      decisions: { topic: string; choice: string; evidence: { file: string; line: number }[] }[];
      test_command: { command: string };
      evidence_files: string[];
    };
    const byTopic = Object.fromEntries(parsed.decisions.map((d) => [d.topic, d]));
    expect(byTopic.environment!.evidence).to.deep.include({
      file: 'pyproject.toml',
      line: 3,
      text: 'build-backend = "hatchling.build" (labwidgets)',
    });
    expect(byTopic.install!.evidence[0]).to.include({ file: '.github/workflows/ci.yml', line: 18 });
    expect(byTopic.runtime_version!.choice).to.equal('python 3.9 or newer');
    expect(parsed.test_command.command).to.equal('pytest -q');
    expect(parsed.evidence_files).to.include.members(['.github/workflows/ci.yml', 'README.md']);
    const human = await run('detect', fixture('polyglot-published'));
    expect(human.stdout)
      .to.include('\nevidence:\n  - environment: python\n      pyproject.toml:3  build-backend')
      .and.include('      .github/workflows/ci.yml:19  pytest -q')
      .and.include('\ntest command: pytest -q\n');
  });

  it('a folder that does not exist exits 2 with a clear message', async () => {
    const { code, stderr } = await run('detect', 'no/such/folder');
    expect(code).to.equal(2);
    expect(stderr).to.match(/^mr-agent: detect: not a directory: .*no\/such\/folder\n/);
  });
});
