import { expect } from 'chai';
import { shellCheckout } from '../../../src/shell/checkout-port.ts';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { zipSync } from 'fflate';
import { Redactor } from '../../../src/log/redact.ts';
import { deliveryGit } from '../../../src/phases/deliver/git.ts';
import { base32, rot13 } from '../../../src/phases/deliver/secret-forms.ts';
import {
  scanChange,
  stagedFiles,
  withheldText,
  type StagedFile,
} from '../../../src/phases/deliver/secret-scan.ts';
import { ExecaShell } from '../../../src/shell/execa-shell.ts';

/** A job token as GitLab 17+ writes them: a prefix, then random letters and digits. */
const TOKEN = `glcbt-64_${randomBytes(15).toString('base64url').replace(/[-_]/g, 'x')}`;
const HALF = Math.floor(TOKEN.length / 2);
const reverse = (text: string) => [...text].reverse().join('');
const codes = (text: string) => [...Buffer.from(text)];

type Files = Record<string, string | Buffer>;

/**
 * Each way a command could write the token into the change that the earlier
 * scan (the Redactor's exact forms over the added lines) let through; the
 * files to name.
 */
const CASES: Array<[string, Files, string[]]> = [
  [
    'split across two added files (the second half in the file git lists first)',
    { 'z-start.txt': `${TOKEN.slice(0, HALF)}\n`, 'a-end.txt': `${TOKEN.slice(HALF)}\n` },
    ['a-end.txt', 'z-start.txt'],
  ],
  [
    'split across consecutive lines of code',
    {
      'cfg.js': `const t =\n  "${TOKEN.slice(0, HALF)}" +\n  "${TOKEN.slice(HALF)}";\n`,
    },
    ['cfg.js'],
  ],
  ['rot13', { 'r.txt': `value: ${rot13(TOKEN)}\n` }, ['r.txt']],
  ['base32', { 'b32.txt': `${base32(Buffer.from(`x=${TOKEN}\n`))}\n` }, ['b32.txt']],
  [
    'base32 in lower case at another byte offset',
    { 'b32l.txt': `${base32(Buffer.from(`key: ${TOKEN}`)).toLowerCase()}\n` },
    ['b32l.txt'],
  ],
  ...[0, 1, 2].map((offset): [string, Files, string[]] => [
    `base64 at byte offset ${offset}, cut into quoted string pieces`,
    {
      'b64.ts': `export const blob = [\n${(
        Buffer.from(`${'a'.repeat(offset)}${TOKEN}\n`)
          .toString('base64')
          .match(/.{1,10}/g) ?? []
      )
        .map((piece) => `  '${piece}',`)
        .join('\n')}\n].join('');\n`,
    },
    ['b64.ts'],
  ]),
  [
    'hex bytes separated by spaces',
    { 'hex.txt': `${Buffer.from(TOKEN).toString('hex').replace(/(..)/g, '$1 ')}\n` },
    ['hex.txt'],
  ],
  [
    'hex escapes in a string literal',
    { 'esc.py': `t = "${Buffer.from(TOKEN).toString('hex').replace(/(..)/g, '\\x$1')}"\n` },
    ['esc.py'],
  ],
  ['gzip stream in an added binary file', { 'blob.bin': gzipSync(`T=${TOKEN}\n`) }, ['blob.bin']],
  [
    'raw deflate stream in an added binary file',
    { 'raw.bin': deflateRawSync(`T=${TOKEN}\n`) },
    ['raw.bin'],
  ],
  [
    'zlib stream after other bytes in a binary file',
    { 'data.dat': Buffer.concat([randomBytes(100), deflateSync(`T=${TOKEN}`), randomBytes(50)]) },
    ['data.dat'],
  ],
  [
    'a deflated entry of a zip file',
    { 'a.zip': Buffer.from(zipSync({ 'env.txt': Buffer.from(`T=${TOKEN}\n`.repeat(3)) })) },
    ['a.zip'],
  ],
  [
    'gzip stream as base64 text, wrapped',
    {
      'gz.txt': `${gzipSync(`T=${TOKEN}\n`)
        .toString('base64')
        .replace(/(.{40})/g, '$1\n')}\n`,
    },
    ['gz.txt'],
  ],
  [
    'zlib stream as hex text',
    { 'z.hex': `${deflateSync(`T=${TOKEN}`).toString('hex')}\n` },
    ['z.hex'],
  ],
  [
    'gzip stream as a decimal byte array in code',
    { 'gz.js': `module.exports = Buffer.from([${[...gzipSync(TOKEN)].join(', ')}]);\n` },
    ['gz.js'],
  ],
  [
    'one character per line, indented',
    { 'lines.yml': `k:\n${[...TOKEN].map((c) => `  - "${c}"`).join('\n')}\n` },
    ['lines.yml'],
  ],
  ['one character per line, CRLF', { 'crlf.txt': `${[...TOKEN].join('\r\n')}\r\n` }, ['crlf.txt']],
  ['one character per space', { 'spaces.txt': `${[...TOKEN].join(' ')}\n` }, ['spaces.txt']],
  ['one character per separator letter', { 'sep.txt': `${[...TOKEN].join('Q')}\n` }, ['sep.txt']],
  ['decimal byte list', { 'dec.txt': `${codes(TOKEN).join(',')}\n` }, ['dec.txt']],
  [
    'decimal byte array in code',
    { 'dec.ts': `const k = [${codes(TOKEN).join(', ')}];\n` },
    ['dec.ts'],
  ],
  [
    'octal byte list with leading zeros',
    {
      'oct.txt': `${codes(TOKEN)
        .map((c) => `0${c.toString(8)}`)
        .join(' ')}\n`,
    },
    ['oct.txt'],
  ],
  [
    'octal escapes',
    {
      'oct.sh': `printf '${codes(TOKEN)
        .map((c) => `\\${c.toString(8)}`)
        .join('')}'\n`,
    },
    ['oct.sh'],
  ],
  [
    'octal byte list without leading zeros',
    {
      'oct2.txt': `${codes(TOKEN)
        .map((c) => c.toString(8))
        .join(' ')}\n`,
    },
    ['oct2.txt'],
  ],
  [
    'URL-encoded, every character as %XX',
    {
      'url.txt': `https://x.invalid/?t=${codes(TOKEN)
        .map((c) => `%${c.toString(16)}`)
        .join('')}\n`,
    },
    ['url.txt'],
  ],
  [
    'HTML character references',
    {
      'page.html': `<p>${codes(TOKEN)
        .map((c) => `&#${c};`)
        .join('')}</p>\n`,
    },
    ['page.html'],
  ],
  [
    'reversed and split across two files',
    {
      'rev1.txt': `${reverse(TOKEN).slice(0, HALF)}\n`,
      'rev2.txt': `${reverse(TOKEN).slice(HALF)}\n`,
    },
    ['rev1.txt', 'rev2.txt'],
  ],
  [
    'in the name of an added file, split across two folders',
    { [`${TOKEN.slice(0, HALF)}/${TOKEN.slice(HALF)}.txt`]: 'x\n' },
    [`${TOKEN.slice(0, HALF)}/${TOKEN.slice(HALF)}.txt`],
  ],
];

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.email=t@e', '-c', 'user.name=T', ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });

/** What the scan before this one searched: the exact forms over each file's added lines and name. */
function earlierScanFinds(files: readonly StagedFile[], redactor: Redactor): boolean {
  return files.some((file) => {
    const added = file.diff
      .split('\n')
      .filter((l) => l.startsWith('+') && !l.startsWith('+++ '))
      .map((l) => l.slice(1));
    return [file.path, added.join('\n'), added.join('')].some((t) => redactor.findSecret(t));
  });
}

describe('phases/deliver: the secret scan finds a secret split or encoded (issue 28 item 5)', () => {
  let root: string;
  const redactor = new Redactor();
  redactor.add(TOKEN);

  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'secret-encodings-'));
    git(root, 'init', '-q', '-b', 'main');
    await writeFile(path.join(root, 'README.md'), 'hello\n');
    git(root, 'add', '-A');
    git(root, 'commit', '-qm', 'first');
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  async function stage(files: Files): Promise<StagedFile[]> {
    for (const [name, content] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(root, name)), { recursive: true });
      await writeFile(path.join(root, name), content);
    }
    git(root, 'add', '-A');
    const g = deliveryGit(shellCheckout, {
      shell: new ExecaShell(),
      cwd: root,
      hostEnv: process.env,
      redactor,
      logger: undefined as never,
      identity: { name: 'T', email: 't@e' },
    });
    return stagedFiles(g, root, shellCheckout.read);
  }

  for (const [name, files, named] of CASES) {
    it(`H3 a secret written ${name} blocks delivery and names the file`, async () => {
      const staged = await stage(files);
      expect(earlierScanFinds(staged, redactor), 'the earlier scan missed it').to.equal(false);
      const finding = scanChange(staged, 'Add files', redactor);
      expect(finding.files.sort()).to.deep.equal([...named].sort());
      expect(finding.inMessage).to.equal(false);
      expect(withheldText(finding)).to.contain('a secret was withheld').and.not.contain(TOKEN);
    });
  }

  it('H3 a commit message with the token one character per line is named', async () => {
    const staged = await stage({ 'ok.txt': 'fine\n' });
    const finding = scanChange(staged, `Done.\n\n${[...TOKEN].join('\n')}`, redactor);
    expect(finding).to.deep.equal({ files: [], inMessage: true, unscanned: [] });
  });

  it('H3 a zip bomb is not unpacked beyond the budget: the file is withheld as not scanned whole', async () => {
    const bomb = gzipSync(Buffer.alloc(80 * 1024 * 1024));
    const staged = await stage({ 'bomb.gz': bomb });
    const finding = scanChange(staged, 'Add', redactor);
    expect(finding.unscanned).to.deep.equal(['bomb.gz']);
    expect(withheldText(finding)).to.contain('`bomb.gz` could not be scanned whole');
  });

  it('H3 a deleted secret and a secret-free change are not withheld', async () => {
    const staged = await stage({ 'plain.txt': 'no secret here\n', 'img.bin': randomBytes(4096) });
    expect(scanChange(staged, 'Add', redactor)).to.deep.equal({
      files: [],
      inMessage: false,
      unscanned: [],
    });
  });

  it("H3 no false positive: this repository's own src/ scanned as one added change, with a random secret, has 0 hits", async () => {
    const src = path.resolve(import.meta.dirname, '../../../src');
    const files: StagedFile[] = [];
    for (const entry of await readdir(src, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const full = path.join(entry.parentPath, entry.name);
      const text = await readFile(full, 'utf8');
      const rel = path.relative(src, full);
      files.push({
        path: rel,
        diff: `diff --git a/${rel} b/${rel}\n+++ b/${rel}\n${text.replace(/^/gm, '+')}`,
      });
    }
    for (let round = 0; round < 3; round++) {
      const random = new Redactor();
      random.add(`glpat-${randomBytes(15).toString('base64url')}`);
      random.add(randomBytes(16).toString('hex'));
      const finding = scanChange(files, 'Add everything', random);
      expect(finding, `round ${round}`).to.deep.equal({
        files: [],
        inMessage: false,
        unscanned: [],
      });
    }
  });
});
