// Mocha's dot reporter plus one plain closing line, `tests: N passed, N failed`,
// which CI reads; the counts (and the titles of skipped tests, which .ci/run counts as
// failed) also go to .test-results.json for .ci/run.
'use strict';
const fs = require('node:fs');
const Mocha = require('mocha');

const { Dot } = Mocha.reporters;

class SummaryReporter extends Dot {
  constructor(runner, options) {
    super(runner, options);
    const skippedTitles = [];
    runner.on('pending', (test) => skippedTitles.push(test.fullTitle()));
    runner.once('end', () => {
      const { passes = 0, failures = 0, pending = 0 } = this.stats;
      const skipped = pending > 0 ? `, ${pending} skipped` : '';
      process.stdout.write(`\ntests: ${passes} passed, ${failures} failed${skipped}\n`);
      try {
        fs.writeFileSync(
          '.test-results.json',
          JSON.stringify({ passes, failures, pending, skippedTitles }),
        );
      } catch {
        // counts on stdout are enough
      }
    });
  }
}

module.exports = SummaryReporter;
