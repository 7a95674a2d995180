import { expect } from 'chai';
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

  after(() =>
    recordFigures('secret scan', [
      `${Object.keys(SECRETS).length} secrets × ${SECRET_FORMS.length / Object.keys(SECRETS).length} forms; scanned ${scanner.items} items, ${scanner.hits.length} hits`,
      ...scanner.summary(),
      `suites: ${ran.join('; ')}`,
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
});
