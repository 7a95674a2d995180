// Where the suite's wall time goes: per file, its tests and its hooks (before/beforeEach/…),
// timed from mocha's own events. Run: npx mocha --reporter ./test/support/timing-reporter.cjs
// Writes .test-timing.json (all files, all hooks) and prints the slowest files and hooks.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const Mocha = require('mocha');

const { Base } = Mocha.reporters;

const fileOf = (runnable) => {
  for (let node = runnable; node; node = node.parent) if (node.file) return node.file;
  return '(root)';
};
const rel = (file) => path.relative(process.cwd(), file);

class TimingReporter extends Base {
  constructor(runner, options) {
    super(runner, options);
    const files = new Map();
    const hooks = new Map();
    const entry = (file) => {
      let e = files.get(file);
      if (!e) {
        e = { file, tests: 0, testMs: 0, hookMs: 0, firstAt: Date.now(), lastAt: Date.now() };
        files.set(file, e);
      }
      e.lastAt = Date.now();
      return e;
    };
    const started = new Map();
    runner.on('hook', (hook) => started.set(hook, Date.now()));
    runner.on('hook end', (hook) => {
      const ms = Date.now() - (started.get(hook) ?? Date.now());
      const file = rel(fileOf(hook));
      entry(file).hookMs += ms;
      const key = `${file} :: ${hook.originalTitle ?? hook.title}`;
      const h = hooks.get(key) ?? { hook: key, calls: 0, ms: 0 };
      h.calls += 1;
      h.ms += ms;
      hooks.set(key, h);
    });
    runner.on('test', (test) => entry(rel(fileOf(test))));
    const tests = [];
    runner.on('test end', (test) => {
      const e = entry(rel(fileOf(test)));
      tests.push({ test: `${rel(fileOf(test))} :: ${test.title}`, ms: test.duration ?? 0 });
      e.tests += 1;
      e.testMs += test.duration ?? 0;
    });
    const failed = [];
    runner.on('fail', (test, err) => failed.push(`${test.fullTitle()}: ${err && err.message}`));
    const begun = Date.now();
    runner.once('end', () => {
      const all = [...files.values()].map((e) => ({ ...e, spanMs: e.lastAt - e.firstAt }));
      all.sort((a, b) => b.testMs + b.hookMs - (a.testMs + a.hookMs));
      const topHooks = [...hooks.values()].sort((a, b) => b.ms - a.ms);
      const wallMs = Date.now() - begun;
      tests.sort((a, b) => b.ms - a.ms);
      fs.writeFileSync(
        '.test-timing.json',
        JSON.stringify({ wallMs, files: all, hooks: topHooks, tests }, null, 1),
      );
      const line = (s) => process.stdout.write(`${s}\n`);
      line(
        `\nwall ${(wallMs / 1000).toFixed(1)} s; tests ${this.stats.passes} passed, ${this.stats.failures} failed`,
      );
      for (const f of failed) line(`  failed: ${f}`);
      line('slowest files (tests + hooks, ms):');
      for (const e of all.slice(0, 20))
        line(
          `  ${String(e.testMs + e.hookMs).padStart(7)} tests ${String(e.testMs).padStart(6)} hooks ${String(e.hookMs).padStart(6)} n=${e.tests} ${e.file}`,
        );
      line('slowest hooks (total ms, calls):');
      for (const h of topHooks.slice(0, 20))
        line(`  ${String(h.ms).padStart(7)} x${h.calls} ${h.hook}`);
      line('slowest tests (ms):');
      for (const t of tests.slice(0, 30)) line(`  ${String(t.ms).padStart(7)} ${t.test}`);
    });
  }
}

module.exports = TimingReporter;
