import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { Redactor } from '../../src/log/redact.ts';
import { scanChange, type StagedFile } from '../../src/phases/deliver/secret-scan.ts';
import { scanBridge } from './secret-scan/bridge.ts';
import { scanRuns } from './secret-scan/runs.ts';
import { recordFigures } from './support/figures.ts';
import { SECRET_FORMS, SECRETS, SecretScanner } from './support/secrets.ts';

/**
 * Secret scan (issue 12 §4, SPEC L1, M5): the end-to-end paths run with
 * known secret values (GitLab token, LLM key, webhook secret, trigger token,
 * CI job token, a custom secret variable), then everything that left the
 * process is scanned for them: plain, URL-encoded, hex and base64 at every
 * alignment. Zero hits.
 */
describe('hardening: secret scan (SPEC L1, M5)', function () {
  this.timeout(120_000);
  const scanner = new SecretScanner();
  const ran: string[] = [];
  const changeScan: string[] = [];

  after(() =>
    recordFigures('secret scan', [
      `${Object.keys(SECRETS).length} secrets × ${SECRET_FORMS.length / Object.keys(SECRETS).length} forms; scanned ${scanner.items} items, ${scanner.hits.length} hits`,
      ...scanner.summary(),
      `suites: ${ran.join('; ')}`,
      ...changeScan,
    ]),
  );

  it('the scanner finds each secret plain, URL-encoded, hex and base64 at every alignment', () => {
    const probe = new SecretScanner();
    for (const [name, value] of Object.entries(SECRETS)) {
      for (const prefix of ['', 'a', 'ab', 'oauth2:']) {
        probe.scan(
          'probe',
          `${name} base64 after ${JSON.stringify(prefix)}`,
          Buffer.from(`${prefix}${value}!`).toString('base64'),
        );
      }
      probe.scan('probe', `${name} plain`, `x ${value} y`);
      probe.scan('probe', `${name} url`, encodeURIComponent(`a=${value}`));
      probe.scan('probe', `${name} hex`, Buffer.from(value).toString('hex'));
    }
    expect(new Set(probe.hits.map((h) => h.where)).size).to.equal(Object.keys(SECRETS).length * 7);
  });

  it('L1 M5 the webhook bridge (mr-agent serve) leaks no secret into logs, notes, GitLab requests or answers', async () => {
    const { deliveries } = await scanBridge(scanner);
    ran.push(`bridge (${deliveries} deliveries incl. faults)`);
    expect(scanner.hits).to.deep.equal([]);
  });

  it('L1 M1 M5 runs (CI-shaped with delivery, failing, and mr-agent run as a child) leak no secret into notes, GitLab requests, logs, artifacts, commits, git config or LLM requests', async () => {
    ran.push(...(await scanRuns(scanner)));
    expect(scanner.hits).to.deep.equal([]);
  });

  it('H3 the secret scan before delivery is linear: a 5 MB change (code, base64 and hex blobs) is scanned in a few seconds, 0 hits', async () => {
    const src = path.resolve(import.meta.dirname, '../../src');
    const texts: string[] = [];
    for (const entry of await readdir(src, { recursive: true, withFileTypes: true }))
      if (entry.isFile())
        texts.push(await readFile(path.join(entry.parentPath, entry.name), 'utf8'));
    const files: StagedFile[] = [];
    let size = 0;
    for (let i = 0; size < 5 * 1024 * 1024; i++) {
      const text =
        i % 10 === 8
          ? randomBytes(30_000)
              .toString('base64')
              .replace(/(.{76})/g, '$1\n')
          : i % 10 === 9
            ? randomBytes(20_000)
                .toString('hex')
                .replace(/(.{64})/g, '$1\n')
            : texts[i % texts.length]!;
      const name = `f${i}.txt`;
      const diff = `diff --git a/${name} b/${name}\n+++ b/${name}\n${text.replace(/^/gm, '+')}`;
      files.push({ path: name, diff });
      size += diff.length;
    }
    const redactor = new Redactor();
    for (const value of Object.values(SECRETS)) redactor.add(value);
    const started = performance.now();
    const finding = scanChange(files, 'Add everything', redactor);
    const seconds = (performance.now() - started) / 1000;
    changeScan.push(
      `change scan before delivery: ${(size / 1024 / 1024).toFixed(1)} MB in ${files.length} files, ${Object.keys(SECRETS).length} secrets: ${seconds.toFixed(2)} s, ${finding.files.length} hits`,
    );
    expect(finding).to.deep.equal({ files: [], inMessage: false, unscanned: [] });
    expect(seconds).to.be.below(15);
  });
});
