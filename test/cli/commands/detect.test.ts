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

  it('a folder that does not exist exits 2 with a clear message', async () => {
    const { code, stderr } = await run('detect', 'no/such/folder');
    expect(code).to.equal(2);
    expect(stderr).to.match(/^mr-agent: detect: not a directory: .*no\/such\/folder\n/);
  });
});
