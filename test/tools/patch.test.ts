import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { makeTempRepo } from '../support/temp-repo.ts';
import { toolContext } from '../support/tool-context.ts';
import { call } from './call.ts';

const read = (dir: string, file: string) => readFile(path.join(dir, file), 'utf8');

describe('tools: apply_patch (unified diff)', () => {
  let repo: Awaited<ReturnType<typeof makeTempRepo>>;
  beforeEach(async () => {
    repo = await makeTempRepo({
      'src/math.ts': 'export function add(a, b) {\n  return a - b;\n}\n',
      'old.txt': 'remove me\n',
    });
  });
  afterEach(() => repo.cleanup());

  it('applies a git-style multi-file patch: modify, create and delete', async () => {
    const patch = [
      'diff --git a/src/math.ts b/src/math.ts',
      '--- a/src/math.ts',
      '+++ b/src/math.ts',
      '@@ -1,3 +1,3 @@',
      ' export function add(a, b) {',
      '-  return a - b;',
      '+  return a + b;',
      ' }',
      'diff --git a/NEW.md b/NEW.md',
      'new file mode 100644',
      '--- /dev/null',
      '+++ b/NEW.md',
      '@@ -0,0 +1,2 @@',
      '+# New',
      '+text',
      'diff --git a/old.txt b/old.txt',
      'deleted file mode 100644',
      '--- a/old.txt',
      '+++ /dev/null',
      '@@ -1 +0,0 @@',
      '-remove me',
      '',
    ].join('\n');
    const ctx = await toolContext(repo.dir);
    const out = await call(ctx, 'apply_patch', { patch });
    expect(out.ok, out.output).to.equal(true);
    expect(out.output).to.equal('modified src/math.ts\ncreated NEW.md\ndeleted old.txt');
    expect(await read(repo.dir, 'src/math.ts')).to.contain('return a + b;');
    expect(await read(repo.dir, 'NEW.md')).to.equal('# New\ntext\n');
    expect(await stat(path.join(repo.dir, 'old.txt')).catch(() => 'gone')).to.equal('gone');
  });

  it('applies a plain diff -u patch without a/ b/ prefixes', async () => {
    const patch =
      '--- src/math.ts\n+++ src/math.ts\n@@ -2 +2 @@\n-  return a - b;\n+  return b + a;\n';
    const ctx = await toolContext(repo.dir);
    const out = await call(ctx, 'apply_patch', { patch });
    expect(out.ok, out.output).to.equal(true);
    expect(await read(repo.dir, 'src/math.ts')).to.contain('return b + a;');
  });

  it('changes nothing when one file of the patch does not apply, and says why', async () => {
    const patch = [
      '--- a/NEW.md',
      '+++ b/NEW.md',
      '@@ -0,0 +1 @@',
      '+hello',
      '--- a/src/math.ts',
      '+++ b/src/math.ts',
      '@@ -1,3 +1,3 @@',
      ' export function sub(a, b) {',
      '-  return a * b;',
      '+  return a / b;',
      ' }',
      '',
    ].join('\n');
    const ctx = await toolContext(repo.dir);
    const out = await call(ctx, 'apply_patch', { patch });
    expect(out.ok).to.equal(false);
    expect(out.output).to.match(/does not apply to src\/math.ts/);
    expect(await stat(path.join(repo.dir, 'NEW.md')).catch(() => 'absent')).to.equal('absent');
  });

  it('refuses text that is not a patch', async () => {
    const ctx = await toolContext(repo.dir);
    const out = await call(ctx, 'apply_patch', { patch: 'please make it faster' });
    expect(out.output).to.match(/^Error: /);
  });

  it('says what is missing when a file section names no file to delete or create', async () => {
    const ctx = await toolContext(repo.dir);
    const del = await call(ctx, 'apply_patch', {
      patch: '--- \n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n',
    });
    expect(del.output).to.equal('Error: a deletion must name the file it deletes after ---');
    const add = await call(ctx, 'apply_patch', {
      patch: '--- /dev/null\n+++ \n@@ -0,0 +1 @@\n+x\n',
    });
    expect(add.output).to.equal('Error: a new file must be named after +++');
    expect(ctx.logLines.join('\n')).not.to.contain('tool failed unexpectedly');
  });
});
