import { expect } from 'chai';
import type { ChangedFile } from '../../../src/core/gitlab-port.ts';
import {
  attributeFolders,
  attributeRules,
  generatedByAttributes,
} from '../../../src/phases/review/inline/gitattributes.ts';
import { skipReason } from '../../../src/phases/review/inline/skip.ts';
import { renderReviewSummary } from '../../../src/report/notes/review-note.ts';

/** Which changed files `/agent review` leaves out, and the reason it gives. */
const file = (
  newPath: string,
  diff = '@@ -1 +1 @@\n-a\n+b\n',
  status: ChangedFile['status'] = 'modified',
  oldPath = newPath,
): ChangedFile => ({ oldPath, newPath, status, additions: 1, deletions: 1, diff });

const rules = (files: Record<string, string>) => attributeRules(new Map(Object.entries(files)));

describe('review: files left out of a review, with the reason (issue 30)', () => {
  it('G1 deleted, binary, renamed without changes, lockfiles, dist/ and minified files are left out; a renamed file with changes is reviewed', () => {
    const none = rules({});
    expect(skipReason(file('src/gone.js', '@@ -1 +0,0 @@\n-x\n', 'deleted'), none)).to.equal(
      'deleted',
    );
    expect(skipReason(file('logo.png', ''), none)).to.equal('binary');
    expect(
      skipReason(file('logo.png', 'Binary files a/logo.png and b/logo.png differ\n'), none),
    ).to.equal('binary');
    expect(skipReason(file('src/new.js', '', 'renamed', 'src/old.js'), none)).to.equal('renamed');
    expect(
      skipReason(file('src/new.js', '@@ -1 +1 @@\n-a\n+b\n', 'renamed', 'src/old.js'), none),
    ).to.equal(undefined);
    for (const lock of ['package-lock.json', 'web/yarn.lock', 'go.sum', 'Cargo.lock', 'uv.lock'])
      expect(skipReason(file(lock), none), lock).to.equal('lockfile');
    expect(skipReason(file('dist/app.js'), none)).to.equal('build');
    expect(skipReason(file('packages/ui/dist/index.d.ts'), none)).to.equal('build');
    expect(skipReason(file('src/app.js.map'), none)).to.equal('build');
    expect(skipReason(file('vendor/jquery.min.js'), none)).to.equal('minified');
    const oneLongLine = `@@ -0,0 +1 @@\n+${'var a=1;'.repeat(40)}\n`;
    expect(skipReason(file('public/app.js', oneLongLine, 'added'), none)).to.equal('minified');
    // ordinary code, and a long line in a file that is no script, are reviewed
    expect(skipReason(file('src/distance.js'), none)).to.equal(undefined);
    expect(skipReason(file('docs/notes.md', oneLongLine), none)).to.equal(undefined);
  });

  it('G1 .gitattributes marks files generated (linguist-generated, gitlab-generated) or written by hand, by git pattern rules', () => {
    const attributes = rules({
      '': [
        '# generated code',
        '*.pb.go linguist-generated',
        '/api/schema.ts linguist-generated=true',
        'gen/** gitlab-generated',
        'gen/keep.ts -gitlab-generated',
        'dist/** -linguist-generated',
        'docs/ linguist-generated',
        '"with space.txt" linguist-generated',
        'other.txt text eol=lf',
      ].join('\n'),
      web: 'schema.ts linguist-generated\n',
    });
    const marked = (path: string) => generatedByAttributes(path, attributes);
    expect(marked('proto/a/b.pb.go')).to.equal(true);
    expect(marked('api/schema.ts')).to.equal(true);
    // an anchored pattern matches from its file's folder only
    expect(marked('lib/api/schema.ts')).to.equal(undefined);
    expect(marked('web/schema.ts')).to.equal(true);
    expect(marked('web/deep/schema.ts')).to.equal(true);
    expect(marked('gen/x/y.ts')).to.equal(true);
    // a later line wins
    expect(marked('gen/keep.ts')).to.equal(false);
    // a folder pattern reaches no file inside it, as in git
    expect(marked('docs/a.md')).to.equal(undefined);
    expect(marked('with space.txt')).to.equal(true);
    expect(marked('other.txt')).to.equal(undefined);
    expect(skipReason(file('proto/a/b.pb.go'), attributes)).to.equal('attributes');
    // marked as written by hand: reviewed even under dist/
    expect(skipReason(file('dist/app.js'), attributes)).to.equal(undefined);
  });

  it('the .gitattributes files read are the root and every folder above a changed file', () => {
    expect(attributeFolders(['a/b/c.ts', 'a/d.ts', 'e.ts'])).to.deep.equal(['', 'a', 'a/b']);
  });
});

describe('review: the summary names the files left out (issue 30)', () => {
  const input = (language: 'en' | 'ja', many = 0) => ({
    language,
    verdict: 'FAIL',
    counts: { critical: 0, major: 1, minor: 0, info: 0 },
    threads: [],
    resolved: 0,
    kept: 0,
    skipped: [
      { path: 'src/obsolete.js', reason: 'deleted' as const },
      { path: 'src/generated/schema.js', reason: 'attributes' as const },
      ...Array.from({ length: many }, (_, i) => ({
        path: `src/m${i}.js`,
        reason: 'budget' as const,
      })),
    ],
  });

  it('G1 each file left out with its reason, in English and Japanese; past 20, a count', () => {
    expect(renderReviewSummary(input('en'))).to.contain(
      'Not reviewed: `src/obsolete.js` (deleted), `src/generated/schema.js` (marked generated in `.gitattributes`)',
    );
    expect(renderReviewSummary(input('ja'))).to.contain(
      'レビュー対象外: `src/obsolete.js`（削除）, `src/generated/schema.js`（`.gitattributes` で生成物と指定）',
    );
    const long = renderReviewSummary(input('en', 25));
    expect(long.match(/\(the budget ran out\)/g)).to.have.length(18);
    expect(long).to.match(/, 7 more$/);
  });

  it('a path that holds backticks or a line break stays one piece of inline code', () => {
    const text = renderReviewSummary({
      ...input('en'),
      skipped: [{ path: 'a`b\n/close.js', reason: 'deleted' }],
    });
    expect(text).to.contain('``a`b /close.js`` (deleted)');
  });
});

describe('review: a hostile .gitattributes (issue 30)', () => {
  it('M1 a hostile .gitattributes: a 100,000-character pattern or an unclosed bracket marks nothing and breaks nothing; the other lines still count', () => {
    const attributes = rules({
      '': [
        `${'a'.repeat(100_000)} linguist-generated`,
        '[ linguist-generated',
        '*.gen.js linguist-generated',
      ].join('\n'),
    });
    expect(generatedByAttributes('src/x.gen.js', attributes)).to.equal(true);
    expect(generatedByAttributes('src/x.js', attributes)).to.equal(undefined);
  });
});

describe('review: .gitattributes globs as git reads them (issue 30)', () => {
  const marks = (pattern: string, path: string) =>
    generatedByAttributes(path, rules({ '': `${pattern} linguist-generated\n` })) === true;

  it('?, classes, escapes, ** at the start, in the middle and at the end', () => {
    expect(marks('file?.js', 'src/file1.js')).to.equal(true);
    expect(marks('file?.js', 'src/file10.js')).to.equal(false);
    expect(marks('v[0-9].js', 'v7.js')).to.equal(true);
    expect(marks('v[!0-9].js', 'v7.js')).to.equal(false);
    expect(marks('v[!0-9].js', 'vx.js')).to.equal(true);
    expect(marks('\\*.js', '*.js')).to.equal(true);
    expect(marks('\\*.js', 'a.js')).to.equal(false);
    expect(marks('**/gen/*.ts', 'gen/a.ts')).to.equal(true);
    expect(marks('**/gen/*.ts', 'x/y/gen/a.ts')).to.equal(true);
    expect(marks('**/gen/*.ts', 'x/gen/sub/a.ts')).to.equal(false);
    expect(marks('a/**/b.ts', 'a/b.ts')).to.equal(true);
    expect(marks('a/**/b.ts', 'a/x/y/b.ts')).to.equal(true);
    expect(marks('out/**', 'out/x/y.js')).to.equal(true);
    expect(marks('src/*.js', 'src/sub/a.js')).to.equal(false);
  });

  it('M1 a pattern of many stars against a long name is answered at once, not by backtracking (a regular expression took over 20 s)', () => {
    const pattern = `${'*a'.repeat(30)}*b`;
    expect(marks(pattern, 'a'.repeat(2_000))).to.equal(false);
    expect(marks(pattern, `${'a'.repeat(2_000)}b`)).to.equal(true);
  });
});
