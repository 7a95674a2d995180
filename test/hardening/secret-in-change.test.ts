import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { ScriptedReplyInput } from '../../src/testkit/openai-server/scenario.ts';
import { action, assessment, planWith } from '../support/plans.ts';
import { gzipSync } from 'node:zlib';
import { t } from '../../src/messages/catalog.ts';
import { runCi } from './support/ci-run.ts';
import { SECRETS, SecretScanner } from './support/secrets.ts';

const TOKEN = SECRETS.gitlabToken;
const reverse = (text: string) => [...text].reverse().join('');
const hex = (text: string) => Buffer.from(text, 'utf8').toString('hex');
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/** What a model that read /proc/*\/environ would write: the token hex-encoded, reversed, in base64 at an offset. */
const LEAKS = {
  'dump/hex.txt': `${hex(`MR_AGENT_GITLAB_TOKEN=${TOKEN}`)}\n`,
  'dump/reversed.txt': `${reverse(`MR_AGENT_GITLAB_TOKEN=${TOKEN}`)}\n`,
  'dump/base64.txt': `${b64(`PATH=/bin\0MR_AGENT_GITLAB_TOKEN=${TOKEN}\0`)}\n`,
};

const JOB = SECRETS.jobToken;
const half = Math.floor(JOB.length / 2);

/** What a command that read the job token from `.git/config` would write past the earlier scan. */
const DISGUISED = {
  'split/start.txt': `${JOB.slice(0, half)}\n`,
  'split/end.txt': `${JOB.slice(half)}\n`,
  'rot13.txt': `${JOB.replace(/[a-z]/gi, (c) => String.fromCharCode(((c.charCodeAt(0) - (c <= 'Z' ? 65 : 97) + 13) % 26) + (c <= 'Z' ? 65 : 97)))}\n`,
  'per-line.txt': `${[...JOB].map((c) => ` ${c}`).join('\n')}\n`,
  'codes.js': `module.exports = [${[...Buffer.from(JOB)].join(', ')}];\n`,
  'gzip.b64': `${gzipSync(`CI_JOB_TOKEN=${JOB}`).toString('base64')}\n`,
};

function leakingModel(leaks: Record<string, string> = LEAKS): ScriptedReplyInput[] {
  const write = (file: string, content: string): ScriptedReplyInput => ({
    purpose: 'execution',
    tool_calls: [{ name: 'write_file', arguments: { path: file, content } }],
  });
  return [
    { purpose: 'planning', json: planWith([action('task_1', 'Write the answer')]) },
    write('answer.txt', '42\n'),
    ...Object.entries(leaks).map(([file, content]) => write(file, content)),
    { purpose: 'execution', content: 'DONE: answer written' },
    { purpose: 'completion', json: assessment(true) },
  ];
}

describe('hardening: a secret written into the change (issue 19 §3)', function () {
  this.timeout(120_000);

  it('a model that writes the hex, reversed and base64-at-an-offset forms of the GitLab token into files: nothing pushed, the note says a secret was withheld, the artifact is clean (issue 19 §1)', async () => {
    const run = await runCi({ replies: leakingModel(), deliverInRun: true });
    try {
      const branch = `refs/heads/${run.s.mergeRequest.sourceBranch}`;
      const remoteHead = execFileSync('git', ['rev-parse', branch], {
        cwd: run.s.project.repoDir,
        encoding: 'utf8',
      }).trim();
      const checkoutHead = execFileSync('git', ['rev-parse', 'HEAD'], {
        cwd: run.checkout,
        encoding: 'utf8',
      }).trim();
      expect(run.outcome?.state, String(run.error)).to.equal('FAILED');
      expect(remoteHead, 'nothing pushed').to.equal(checkoutHead);
      expect(
        run.standIn.requests.entries.filter((e) => e.route === 'git' && e.method === 'POST'),
        'no git push request',
      ).to.have.length(0);

      const notes = run.standIn.model.notes.map((n) => n.body).join('\n\n');
      expect(notes).to.contain('a secret was withheld');
      for (const file of Object.keys(LEAKS)) expect(notes).to.contain(file);
      expect(notes).to.contain('nothing was committed or pushed');

      const patch = await readFile(path.join(run.checkout, '.mr-agent/patch.diff'), 'utf8');
      expect(patch).to.contain('answer.txt').and.not.contain('dump/');
      const scanner = new SecretScanner();
      scanner.scan('artifact', 'patch.diff', patch);
      for (const note of run.standIn.model.notes)
        scanner.scan('notes', `note ${note.id}`, note.body);
      for (const line of run.logLines) scanner.scan('log', 'line', line);
      expect(scanner.hits).to.deep.equal([]);
    } finally {
      await run.close();
    }
  });

  it('H3 the job token split across two files, in rot13, one character per line, as a byte array and gzipped in base64: nothing pushed, the note names every file and says what to do (issue 28 item 5)', async () => {
    const run = await runCi({ replies: leakingModel(DISGUISED), deliverInRun: true });
    try {
      const remoteHead = execFileSync(
        'git',
        ['rev-parse', `refs/heads/${run.s.mergeRequest.sourceBranch}`],
        { cwd: run.s.project.repoDir, encoding: 'utf8' },
      ).trim();
      const checkoutHead = execFileSync('git', ['rev-parse', 'HEAD'], {
        cwd: run.checkout,
        encoding: 'utf8',
      }).trim();
      expect(run.outcome?.state, String(run.error)).to.equal('FAILED');
      expect(remoteHead, 'nothing pushed').to.equal(checkoutHead);
      expect(
        run.standIn.requests.entries.filter((e) => e.route === 'git' && e.method === 'POST'),
      ).to.have.length(0);

      const notes = run.standIn.model.notes.map((n) => n.body).join('\n\n');
      expect(notes).to.contain('a secret was withheld');
      for (const file of Object.keys(DISGUISED)) expect(notes).to.contain(`\`${file}\``);
      expect(notes).to.contain(t('en', 'hint.deliver.secretWithheld').slice(0, 60));

      const patch = await readFile(path.join(run.checkout, '.mr-agent/patch.diff'), 'utf8');
      expect(patch, 'the rest of the change is kept').to.contain('answer.txt');
      for (const file of Object.keys(DISGUISED)) expect(patch, notes).to.not.contain(file);
    } finally {
      await run.close();
    }
  });
});
