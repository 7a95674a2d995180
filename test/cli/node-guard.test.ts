import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REQUIRED_NODE_MAJOR, nodeVersionProblem } from '../../src/cli/node-guard.ts';
import { cliBundle } from '../support/cli-bundle.ts';

/** Every `node` on PATH (and the usual system places) older than the required major version. */
function oldNodes(): string[] {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter), '/usr/bin', '/usr/local/bin'];
  const found: string[] = [];
  for (const dir of new Set(dirs.filter(Boolean))) {
    const candidate = path.join(dir, 'node');
    try {
      accessSync(candidate, constants.X_OK);
    } catch {
      continue;
    }
    const version = spawnSync(candidate, ['--version'], { encoding: 'utf8' }).stdout ?? '';
    const major = Number(/^v(\d+)\./.exec(version.trim())?.[1]);
    if (major < REQUIRED_NODE_MAJOR) found.push(candidate);
  }
  return found;
}

/** Makes `process.versions.node` claim an old version before the command's entry runs. */
const FAKE_OLD_VERSION = `data:text/javascript,Object.defineProperty(process.versions,'node',{value:'20.9.0'})`;

const COMMANDS = [
  [],
  ['--version'],
  ['--help'],
  ['demo'],
  ['detect', '.'],
  ['run', '--task', 'x'],
  ['ci'],
  ['serve'],
  ['config', 'check'],
];

describe('cli/node guard: an older Node.js ends every command with one line and exit 2', function () {
  this.timeout(60_000);

  it('N1 the required major version is the one package.json `engines` states', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } };
    expect(pkg.engines.node).to.equal(`>=${REQUIRED_NODE_MAJOR}`);
  });

  it('N1 a version below the required major is named with the required one; newer ones pass', () => {
    const line = nodeVersionProblem('20.20.2', '/usr/bin/node');
    expect(line).to.equal(
      'mr-agent: needs Node.js 22 or newer (package.json engines: >=22); this is Node.js v20.20.2 (/usr/bin/node)',
    );
    expect(nodeVersionProblem('18.0.0', '/x')).to.contain('v18.0.0');
    expect(nodeVersionProblem('garbage', '/x')).to.contain('vgarbage');
    for (const ok of ['22.0.0', '22.12.1', '24.21.0', '30.0.0'])
      expect(nodeVersionProblem(ok, '/x'), ok).to.equal(undefined);
  });

  /**
   * The bundled command on an old Node: a real one when this machine has one
   * (the system Node beside the project's own), else the project's Node made
   * to report an old version before the entry runs.
   */
  function runOld(bin: string, args: string[], cwd: string) {
    const [old] = oldNodes();
    const argv = old ? [bin, ...args] : ['--import', FAKE_OLD_VERSION, bin, ...args];
    return spawnSync(old ?? process.execPath, argv, {
      cwd,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', HOME: cwd },
      input: '',
    });
  }

  it(`N1 on Node below ${REQUIRED_NODE_MAJOR} each command prints one line naming both versions and exits 2`, async () => {
    const bin = await cliBundle();
    const cwd = mkdtempSync(path.join(os.tmpdir(), 'mr-agent-old-node-'));
    try {
      for (const args of COMMANDS) {
        const result = runOld(bin, args, cwd);
        const what = `mr-agent ${args.join(' ')}`;
        expect(result.status, `${what}: ${result.stderr}`).to.equal(2);
        expect(result.stdout, what).to.equal('');
        expect(result.stderr, what).to.match(
          /^mr-agent: needs Node\.js 22 or newer \(package\.json engines: >=22\); this is Node\.js v(\d+)\.\S+ \(.+\)\n$/,
        );
        expect(result.stderr, what).not.to.contain('internal error');
      }
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
