import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureBuilt } from '../support/cli-bundle.ts';

const REPO_ROOT = path.resolve(import.meta.dirname, '../..');

interface PackageJson {
  version: string;
  bin: Record<string, string>;
  exports: Record<string, string | Record<string, string>>;
  scripts: Record<string, string>;
  dependencies?: Record<string, string>;
}

/** Apparent size in bytes of every file below a folder. */
function bytesBelow(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += bytesBelow(full);
    else if (entry.isFile()) total += statSync(full).size;
  }
  return total;
}

/** Every file path `exports` and `bin` name, relative to the package root. */
function namedFiles(pkg: PackageJson): string[] {
  const targets = Object.values(pkg.exports).flatMap((t) =>
    typeof t === 'string' ? [t] : Object.values(t),
  );
  return [...targets, ...Object.values(pkg.bin)].map((t) => path.normalize(t));
}

describe('cli/package: the packed tarball installs alone and runs', function () {
  this.timeout(240_000);
  const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as PackageJson;
  let dir: string;
  let app: string;
  /** The project's own Node first on PATH: the installed command's `#!/usr/bin/env node` finds it. */
  let env: Record<string, string>;

  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'mr-agent-package-'));
    app = path.join(dir, 'app');
    mkdirSync(app);
    env = {
      PATH: [path.dirname(process.execPath), process.env.PATH ?? ''].join(path.delimiter),
      HOME: dir,
      npm_config_cache: path.join(dir, 'npm-cache'),
      npm_config_update_notifier: 'false',
    };
    // what `prepack` runs (`npm run build`), unless dist/ is already current
    ensureBuilt();
    execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', dir], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env },
      stdio: 'pipe',
    });
    const [tarball] = readdirSync(dir).filter((name) => name.endsWith('.tgz'));
    // an empty folder, no network: nothing but the tarball may be needed
    execFileSync(
      'npm',
      ['install', '--offline', '--no-audit', '--no-fund', path.join(dir, tarball!)],
      { cwd: app, env: { ...process.env, ...env }, stdio: 'pipe' },
    );
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('P1 `prepack` runs the whole build, which writes every file `exports` and `bin` name', () => {
    expect(pkg.scripts['prepack']).to.equal('npm run build');
    const installed = path.join(app, 'node_modules', 'mr-agent');
    for (const file of namedFiles(pkg))
      expect(existsSync(path.join(installed, file)), file).to.equal(true);
  });

  it('P1 the install is one package, at most 5 packages and 10 MB', () => {
    expect(pkg.dependencies ?? {}).to.deep.equal({});
    const lock = JSON.parse(
      readFileSync(path.join(app, 'node_modules', '.package-lock.json'), 'utf8'),
    ) as { packages: Record<string, unknown> };
    const packages = Object.keys(lock.packages).filter((key) => key.startsWith('node_modules/'));
    expect(packages).to.deep.equal(['node_modules/mr-agent']);
    expect(bytesBelow(path.join(app, 'node_modules'))).to.be.at.most(10 * 1024 * 1024);
  });

  it('P1 the installed `mr-agent` runs --version, detect and demo with no other setup', () => {
    const bin = path.join(app, 'node_modules', '.bin', 'mr-agent');
    const run = (args: string[]) =>
      execFileSync(bin, args, { cwd: app, env: { ...env, CI: 'true' }, encoding: 'utf8' });
    expect(run(['--version']).trim()).to.equal(pkg.version);
    const sample = path.join(dir, 'sample');
    mkdirSync(sample);
    writeFileSync(path.join(sample, 'package.json'), '{"name":"x","scripts":{"test":"node t.js"}}');
    expect(run(['detect', sample, '--json'])).to.contain('"node"');
    const demo = run(['demo']);
    expect(demo).to.contain('✅ COMPLETE');
    expect(demo).to.contain(path.join(app, 'node_modules', 'mr-agent', 'demo'));
  });

  it('P1 the installed library entry imports without any other package', async () => {
    const lib = (await import(path.join(app, 'node_modules', 'mr-agent', 'dist', 'index.mjs'))) as {
      VERSION: string;
      parseReviewVerdict(text: string): { result: string };
    };
    expect(lib.parseReviewVerdict('{"result":"FAIL"}').result).to.equal('FAIL');
    expect(lib.VERSION).to.equal(pkg.version);
  });
});
