import { mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { makeTempRepo } from '../support/temp-repo.ts';
import { toolContext } from '../support/tool-context.ts';
import { call } from './call.ts';

describe('tools: path sandbox (M2)', () => {
  let repo: Awaited<ReturnType<typeof makeTempRepo>>;
  let outside: string;

  beforeEach(async () => {
    repo = await makeTempRepo({ 'src/app.ts': 'export const a = 1;\n' });
    outside = path.join(path.dirname(repo.dir), 'outside');
    await mkdir(outside);
    await writeFile(path.join(outside, 'secret.txt'), 'outside secret\n');
  });
  afterEach(() => repo.cleanup());

  const refusals: Array<[string, string, Record<string, unknown>, RegExp]> = [
    ['read with ../', 'read_file', { path: '../outside/secret.txt' }, /outside the repository/],
    ['read with nested ../', 'read_file', { path: 'src/../../outside/secret.txt' }, /outside/],
    [
      'read an absolute path outside',
      'read_file',
      { path: '/etc/passwd' },
      /outside the repository/,
    ],
    ['write with ../', 'write_file', { path: '../outside/x.txt', content: 'x' }, /outside/],
    ['write into .git', 'write_file', { path: '.git/config', content: 'x' }, /\.git folder/],
    ['write into .git via ./', 'write_file', { path: './src/../.git/HEAD', content: 'x' }, /\.git/],
    ['read .git', 'read_file', { path: '.git/HEAD' }, /\.git folder/],
    ['list .git', 'list_files', { path: '.git' }, /\.git folder/],
    [
      'patch .git',
      'apply_patch',
      { patch: '--- /dev/null\n+++ .git/hooks/pre-commit\n@@ -0,0 +1 @@\n+x\n' },
      /\.git/,
    ],
    ['run in a folder outside', 'run_command', { command: 'pwd', cwd: '..' }, /outside/],
    ['search outside', 'search_code', { query: 'secret', path: '../outside' }, /outside/],
  ];
  for (const [label, tool, args, message] of refusals) {
    it(`M2 refuses: ${label}`, async () => {
      const ctx = await toolContext(repo.dir);
      const outcome = await call(ctx, tool, args);
      expect(outcome.ok).to.equal(false);
      expect(outcome.output)
        .to.match(/^Error: /)
        .and.match(message);
    });
  }

  it('M2 refuses a symbolic link that leads out of the repository, for reading and writing', async () => {
    await symlink(outside, path.join(repo.dir, 'link-out'));
    await symlink(path.join(outside, 'secret.txt'), path.join(repo.dir, 'file-out'));
    const ctx = await toolContext(repo.dir);
    for (const [tool, args] of [
      ['read_file', { path: 'link-out/secret.txt' }],
      ['read_file', { path: 'file-out' }],
      ['write_file', { path: 'link-out/new.txt', content: 'x' }],
      ['write_file', { path: 'file-out', content: 'overwritten' }],
      ['list_files', { path: 'link-out' }],
    ] as const) {
      const outcome = await call(ctx, tool, args);
      expect(outcome.output, `${tool} ${JSON.stringify(args)}`).to.match(/symbolic link/);
    }
    expect(await readFile(path.join(outside, 'secret.txt'), 'utf8')).to.equal('outside secret\n');
    expect(await stat(path.join(outside, 'new.txt')).catch(() => 'missing')).to.equal('missing');
  });

  it('M2 refuses a symbolic link into .git and a dangling link', async () => {
    await symlink(path.join(repo.dir, '.git'), path.join(repo.dir, 'gitdir'));
    await symlink(path.join(outside, 'nope'), path.join(repo.dir, 'dangling'));
    const ctx = await toolContext(repo.dir);
    expect(
      (await call(ctx, 'write_file', { path: 'gitdir/config', content: 'x' })).output,
    ).to.match(/into \.git/);
    expect((await call(ctx, 'write_file', { path: 'dangling', content: 'x' })).output).to.match(
      /missing target/,
    );
  });

  it('allows absolute paths and `..` that stay inside the repository, and links inside it', async () => {
    await symlink(path.join(repo.dir, 'src'), path.join(repo.dir, 'src-link'));
    const ctx = await toolContext(repo.dir);
    const abs = await call(ctx, 'read_file', { path: path.join(repo.dir, 'src/app.ts') });
    expect(abs.ok, abs.output).to.equal(true);
    const dotdot = await call(ctx, 'read_file', { path: 'src/../src/app.ts' });
    expect(dotdot.output).to.contain('export const a = 1;');
    const viaLink = await call(ctx, 'read_file', { path: 'src-link/app.ts' });
    expect(viaLink.ok, viaLink.output).to.equal(true);
  });

  it('M2 a link loop and an over-long name are sandbox refusals with a plain reason, not internal failures', async () => {
    await symlink('loop-b', path.join(repo.dir, 'loop-a'));
    await symlink('loop-a', path.join(repo.dir, 'loop-b'));
    const ctx = await toolContext(repo.dir);
    const loop = await call(ctx, 'read_file', { path: 'loop-a' });
    expect(loop.output).to.equal('Error: loop-a: its symbolic links form a loop');
    const long = await call(ctx, 'write_file', { path: `${'x'.repeat(300)}.txt`, content: 'x' });
    expect(long.output).to.match(/: the path or one of its names is too long$/);
    expect(ctx.logLines.join('\n')).not.to.contain('tool failed unexpectedly');
  });
});
