// Hostile inputs the agent must take in bounded time (issue 12): comment
// bodies built to make the command parser, the JSON extractor or the verdict
// parser work hard. Each line prints the size and the time of one parse.
import { performance } from 'node:perf_hooks';
import { extractJson } from '../src/llm/extract-json.ts';
import { parseReviewVerdict } from '../src/llm/review-verdict.ts';
import { parseAgentCommand } from '../src/commands/parse.ts';
import { interpretTriggerPayload } from '../src/commands/trigger-payload.ts';

function time(label: string, input: string, fn: (text: string) => unknown): void {
  fn(input.slice(0, 1000)); // warm-up
  const runs: number[] = [];
  for (let i = 0; i < 5; i++) {
    const start = performance.now();
    fn(input);
    runs.push(performance.now() - start);
  }
  runs.sort((a, b) => a - b);
  const size = `${(input.length / 1024).toFixed(0)} KB`;
  console.log(`  ${label.padEnd(58)} ${size.padStart(8)}  median ${runs[2]!.toFixed(1)} ms`);
}

const growingRuns = Array.from({ length: 1400 }, (_, i) => `${'`'.repeat(i + 1)}a`).join(' ');
const comment = (text: string) => parseAgentCommand(text);

console.log('command parser (a webhook body is at most 1 MiB):');
time('1400 unmatched backtick runs of growing length', `${growingRuns}\n/agent go`, comment);
time('80000 quoted command lines', '> /agent fix\n'.repeat(80_000), comment);
time('unclosed HTML comments', `/agent x ${'<!--'.repeat(250_000)}`, comment);
time('fences opened and closed 100000 times', `${'```\n'.repeat(100_000)}/agent hi`, comment);

console.log('TRIGGER_PAYLOAD:');
time('JSON nested 100000 levels', `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`, (t) =>
  interpretTriggerPayload(t, { prefix: '/agent' }),
);

console.log('model replies (10 MB):');
time('opening braces', '{'.repeat(10_000_000), (t) => extractJson(t));
time('broken objects', '{a b c} '.repeat(1_250_000), (t) => extractJson(t));
time('verdict markers without a value', 'Verdict:\n'.repeat(1_100_000), (t) =>
  parseReviewVerdict(t),
);
