import { readFile, symlink } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { makeTempRepo } from '../support/temp-repo.ts';
import { toolContext } from '../support/tool-context.ts';
import { call } from './call.ts';

describe('tools: list_files, read_file, write_file (F1)', () => {
  let repo: Awaited<ReturnType<typeof makeTempRepo>>;
  beforeEach(async () => {
    repo = await makeTempRepo({
      'README.md': 'line 1\nline 2\nline 3\nline 4\n',
      'src/a.ts': 'export const a = 1;\n',
      'src/deep/b.ts': 'export const b = 2;\n',
      'node_modules/pkg/index.js': 'module.exports = 1;\n',
      'bin.dat': 'ab\u0000cd',
    });
  });
  afterEach(() => repo.cleanup());

  it('lists one folder, marking folders, and never shows .git', async () => {
    const ctx = await toolContext(repo.dir);
    const out = await call(ctx, 'list_files', {});
    expect(out.output.split('\n')).to.deep.equal(['README.md', 'bin.dat', 'node_modules/', 'src/']);
  });

  it('lists recursively without descending into dependency folders, and stops at max_entries', async () => {
    const ctx = await toolContext(repo.dir);
    const out = await call(ctx, 'list_files', { recursive: true });
    expect(out.output).to.contain('src/deep/b.ts').and.not.contain('node_modules/pkg');
    const capped = await call(ctx, 'list_files', { recursive: true, max_entries: 2 });
    expect(capped.output).to.contain('stopped after 2 entries');
  });

  it('reads a whole file and a line range', async () => {
    const ctx = await toolContext(repo.dir);
    expect((await call(ctx, 'read_file', { path: 'README.md' })).output).to.equal(
      'README.md (4 lines)\nline 1\nline 2\nline 3\nline 4',
    );
    expect(
      (await call(ctx, 'read_file', { path: 'README.md', start_line: 2, end_line: 3 })).output,
    ).to.equal('README.md (lines 2-3 of 4)\nline 2\nline 3');
    expect((await call(ctx, 'read_file', { path: 'README.md', start_line: 9 })).output).to.match(
      /has only 4 lines/,
    );
  });

  it('reports missing files, folders and binary files as text for the model', async () => {
    const ctx = await toolContext(repo.dir);
    const missing = await call(ctx, 'read_file', { path: 'nope.txt' });
    expect(missing).to.include({ ok: false, output: 'Error: nope.txt: no such file or folder' });
    expect((await call(ctx, 'read_file', { path: 'src' })).output).to.match(/is a folder/);
    expect((await call(ctx, 'read_file', { path: 'bin.dat' })).output).to.match(/binary file/);
  });

  it('validates arguments with zod and returns the problem as text', async () => {
    const ctx = await toolContext(repo.dir);
    const bad = await call(ctx, 'read_file', { file: 'README.md' });
    expect(bad.ok).to.equal(false);
    expect(bad.output).to.match(/invalid arguments for read_file: path: /);
    const notJson = await call(ctx, 'read_file', '{"path": ');
    expect(notJson.output).to.match(/not valid JSON/);
    const unknown = await call(ctx, 'delete_everything', {});
    expect(unknown.output).to.match(
      /no tool named "delete_everything"; available tools: list_files/,
    );
  });

  it('writes new files with their folders and replaces existing ones', async () => {
    const ctx = await toolContext(repo.dir);
    const created = await call(ctx, 'write_file', { path: 'new/dir/c.ts', content: 'c\n' });
    expect(created.output).to.equal('created new/dir/c.ts (2 bytes)');
    const replaced = await call(ctx, 'write_file', { path: 'src/a.ts', content: 'x\n' });
    expect(replaced.output).to.equal('replaced src/a.ts (2 bytes)');
    expect(await readFile(path.join(repo.dir, 'src/a.ts'), 'utf8')).to.equal('x\n');
  });

  it('writes through a symbolic link that stays inside the repository', async () => {
    await symlink(path.join(repo.dir, 'src'), path.join(repo.dir, 'alias'));
    const ctx = await toolContext(repo.dir);
    const out = await call(ctx, 'write_file', { path: 'alias/z.ts', content: 'z' });
    expect(out.ok, out.output).to.equal(true);
    expect(await readFile(path.join(repo.dir, 'src/z.ts'), 'utf8')).to.equal('z');
  });

  it('K4 caps long output for the model, keeping head and tail', async () => {
    const long = Array.from({ length: 5000 }, (_, i) => `row ${i}`).join('\n');
    const ctx = await toolContext(repo.dir, { maxOutputChars: 1000 });
    await call(ctx, 'write_file', { path: 'big.txt', content: long });
    const out = await call(ctx, 'read_file', { path: 'big.txt' });
    expect(out.output.length).to.be.at.most(1000);
    expect(out.output)
      .to.contain('row 0')
      .and.contain('row 4999')
      .and.match(/characters cut/);
  });
});
