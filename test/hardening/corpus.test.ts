import { expect } from 'chai';
import { listAreas, loadArea } from './corpus/case.ts';
import { CrashWatch, expectPrototypeIntact } from './corpus/checks.ts';
import {
  removeCaseDirs,
  runArgvCase,
  runConfigFileCase,
  runEnvCase,
  runRepoCase,
  runTaskCase,
} from './corpus/cli-areas.ts';
import { runCommandCase, runLlmCase, runPayloadCase } from './corpus/pure-areas.ts';
import { WebhookArea } from './corpus/webhook-area.ts';
import { recordFigures } from './support/figures.ts';

/**
 * The bad-input corpus (issue 12 §1): every case file under test/corpus/, by
 * area. Each case declares its outcome class — a clear error naming what and
 * where, or a safe ignore — and must never crash, leave an unhandled
 * rejection, print a raw stack trace or pollute Object.prototype.
 */
type Runner = (raw: unknown, file: string) => Promise<string> | string;

const webhook = new WebhookArea();

const RUNNERS: Record<string, Runner> = {
  argv: runArgvCase,
  'ci-variables': runEnvCase,
  commands: runCommandCase,
  'llm-replies': runLlmCase,
  'mr-agent-yml': runConfigFileCase,
  'repo-files': runRepoCase,
  'task-yaml': runTaskCase,
  'trigger-payload': runPayloadCase,
  webhook: (raw, file) => webhook.run(raw, file),
};

const MINIMUM_CASES = 200;
/** `CORPUS_VERBOSE=1 npx mocha test/hardening/corpus.test.ts` prints what each case produced. */
const VERBOSE = process.env.CORPUS_VERBOSE === '1';

describe('hardening: bad-input corpus (issue 12, SPEC A2 A3 J1 G2 L1)', function () {
  this.timeout(60_000);
  const watch = new CrashWatch();
  const counts = new Map<string, { cases: number; error: number; ignore: number; ok: number }>();

  before(async () => {
    watch.install();
    await webhook.start();
  });

  after(async () => {
    const final = webhook.finalChecks();
    await webhook.stop();
    await removeCaseDirs();
    watch.uninstall();
    const total = [...counts.values()].reduce((sum, c) => sum + c.cases, 0);
    recordFigures('bad-input corpus', [
      `${total} cases in ${counts.size} areas (clear error / safe ignore / accepted as data)`,
      ...[...counts].map(
        ([area, c]) =>
          `${area.padEnd(16)} ${String(c.cases).padStart(3)}  (${c.error} error, ${c.ignore} ignore, ${c.ok} ok)`,
      ),
      `webhook: ${final.requests} stand-in requests, ${final.logLines} bridge log lines, 0 quick actions`,
      '0 crashes, 0 unhandled rejections, 0 stack traces, Object.prototype intact',
    ]);
  });

  it('the corpus has every area wired and at least 200 cases', () => {
    expect(listAreas()).to.deep.equal(Object.keys(RUNNERS).sort());
    const total = listAreas()
      .flatMap(loadArea)
      .reduce((sum, f) => sum + f.cases.length, 0);
    expect(total).to.be.at.least(MINIMUM_CASES);
  });

  for (const area of listAreas()) {
    describe(area, () => {
      for (const { file, cases } of loadArea(area)) {
        for (const raw of cases) {
          const name = String(raw.name ?? '(unnamed)');
          const outcome = String(raw.expect);
          it(`${outcome}: ${name}`, async () => {
            const runner = RUNNERS[area];
            if (!runner) throw new Error(`no runner for area ${area}`);
            const seen = await runner(raw, file);
            if (VERBOSE) process.stdout.write(`      → ${seen.slice(0, 300)}\n`);
            await watch.expectNone(name);
            expectPrototypeIntact(`${name}: Object.prototype`);
            const count = counts.get(area) ?? { cases: 0, error: 0, ignore: 0, ok: 0 };
            count.cases++;
            count[outcome as 'error' | 'ignore' | 'ok']++;
            counts.set(area, count);
          });
        }
      }
    });
  }
});
