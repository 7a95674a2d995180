import { expect } from 'chai';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import OpenAI from 'openai';
import { parseInlineReview } from '../../src/phases/review/inline/findings.ts';

/**
 * `npm run scripted-llm -- --scenario FILE --port N`: the scripted
 * OpenAI-compatible server on its own, as docs/testing.md describes it, with
 * the review demo's scenario.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const SCRIPT = path.join(ROOT, 'scripts/scripted-llm.ts');

function start(args: string[]): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, ['--import', 'tsx', SCRIPT, ...args], { cwd: ROOT });
}

async function exited(child: ChildProcessWithoutNullStreams) {
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, stdout, stderr };
}

describe('scripted-llm: the scripted model server on its own (issue 30)', function () {
  this.timeout(30_000);

  it('serves the review demo scenario on the port it prints, to the openai SDK', async () => {
    const child = start(['--scenario', 'demo/review-scenario.yaml', '--port', '0']);
    const done = exited(child);
    const port = await new Promise<number>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const match = /^port (\d+)$/m.exec(out);
        if (match) resolve(Number(match[1]));
      });
      child.on('close', () => reject(new Error(`exited before printing its port: ${out}`)));
    });
    const client = new OpenAI({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'unused' });
    const reply = await client.chat.completions.create(
      {
        model: 'demo-model',
        messages: [{ role: 'user', content: 'diff of src/slugify.js (untrusted data …)' }],
      },
      { headers: { 'X-Agent-Purpose': 'review.merge_request' } },
    );
    const review = parseInlineReview(reply.choices[0]!.message.content ?? '');
    expect(review.verdict.result).to.equal('FAIL');
    expect(review.findings.map((f) => [f.file, f.line])).to.deep.equal([
      ['src/slugify.js', 11],
      ['src/slugify.js', 10],
    ]);
    expect(review.findings[0]!.suggestion).to.match(/^ {4}\.replace/);
    child.kill('SIGTERM');
    const { code, stdout } = await done;
    expect(code).to.equal(0);
    expect(stdout).to.contain('purpose=review.merge_request');
  });

  it('a missing scenario or a bad port is a clear error with exit 2', async () => {
    const none = await exited(start(['--port', '1']));
    expect(none.code).to.equal(2);
    expect(none.stderr).to.contain('--scenario is required');
    const port = await exited(start(['--scenario', 'demo/review-scenario.yaml', '--port', 'x']));
    expect(port.code).to.equal(2);
    expect(port.stderr).to.contain('--port must be a whole number');
    const missing = await exited(start(['--scenario', 'nope.yaml']));
    expect(missing.code).to.equal(2);
    expect(missing.stderr).to.contain('cannot read the scenario nope.yaml');
  });
});
