import { execFileSync } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { ScriptedReplyInput } from '../../../src/testkit/openai-server/scenario.ts';
import type { ScriptedOpenAiServer } from '../../../src/testkit/openai-server/server.ts';
import { action, assessment, planWith } from '../../support/plans.ts';
import { runCi, type CiRun } from '../support/ci-run.ts';
import { startRunWorld } from '../support/run-world.ts';
import type { SecretScanner } from '../support/secrets.ts';

/**
 * Runs for the secret scan: a CI-shaped run whose model goes looking for
 * secrets with its tools (and commits what it found), a failing run, and
 * `mr-agent run` as a child process. Everything they leave is scanned.
 */
const SNOOPING: readonly string[] = [
  'env',
  'cat .git/config; git config --list --show-origin',
  'echo "$OPENAI_API_KEY|$MR_AGENT_GITLAB_TOKEN|$CI_JOB_TOKEN|$WAREHOUSE_DSN"',
  'cat /proc/self/environ | tr "\\0" "\\n"',
  'env > found-env.txt; git remote -v >> found-env.txt',
];

function snoopingReplies(): ScriptedReplyInput[] {
  return [
    { purpose: 'planning', json: planWith([action('task_1', 'Write the answer', 'run_command')]) },
    ...SNOOPING.map((command) => ({
      purpose: 'execution',
      tool_calls: [{ name: 'run_command', arguments: { command } }],
    })),
    {
      purpose: 'execution',
      tool_calls: [{ name: 'write_file', arguments: { path: 'answer.txt', content: '42\n' } }],
    },
    { purpose: 'execution', content: 'DONE: wrote answer.txt' },
    { purpose: 'completion', json: assessment(true) },
  ];
}

async function files(root: string): Promise<Array<[string, string]>> {
  const out: Array<[string, string]> = [];
  const visit = async (dir: string) => {
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) await visit(full);
      else if (entry.isFile())
        out.push([path.relative(root, full), await readFile(full, 'latin1')]);
    }
  };
  await visit(root);
  return out;
}

function scanLlmRequests(scanner: SecretScanner, server: ScriptedOpenAiServer, label: string) {
  for (const request of server.requests)
    scanner.scan(
      'LLM request bodies',
      `${label} #${request.sequence}`,
      JSON.stringify(request.body ?? {}),
    );
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'latin1', maxBuffer: 64 * 1024 * 1024 });

async function scanCiRun(scanner: SecretScanner, run: CiRun, label: string): Promise<void> {
  for (const note of run.standIn.model.notes)
    scanner.scan('note bodies', `${label} note ${note.id}`, note.body);
  for (const r of run.standIn.requests.entries)
    scanner.scan(
      'GitLab requests',
      `${label} ${r.method} ${r.path}`,
      `${r.path}${r.query ?? ''} ${r.input ?? ''}`,
    );
  for (const line of run.logLines) scanner.scan('log lines', label, line);
  scanLlmRequests(scanner, run.server, label);
  for (const [name, text] of await files(path.join(run.checkout, '.mr-agent')))
    scanner.scan('artifacts (.mr-agent/)', `${label} ${name}`, text);
  const bare = run.s.project.repoDir;
  scanner.scan(
    'commits (messages, trees)',
    `${label} history`,
    git(bare, 'log', '--all', '-p', '--format=%H%n%an <%ae>%n%B'),
  );
  scanner.scan(
    'git config',
    `${label} checkout .git/config`,
    await readFile(path.join(run.checkout, '.git', 'config'), 'latin1'),
  );
  scanner.scan(
    'git config',
    `${label} remote config`,
    await readFile(path.join(bare, 'config'), 'latin1'),
  );
  for (const [name, text] of await files(run.checkout))
    if (!name.startsWith('.git/objects')) scanner.scan('checkout files', `${label} ${name}`, text);
}

export async function scanRuns(scanner: SecretScanner): Promise<string[]> {
  const ran: string[] = [];
  const snooping = await runCi({ replies: snoopingReplies(), deliver: true });
  try {
    if (snooping.delivery?.status !== 'pushed')
      throw new Error(
        `the snooping run did not deliver: ${String(snooping.deliveryError ?? snooping.error)}`,
      );
    // the probe had teeth: what the commands found was pushed with the change
    const pushed = git(
      snooping.s.project.repoDir,
      'show',
      `${snooping.s.mergeRequest.sourceBranch}:found-env.txt`,
    );
    if (!pushed.includes('PATH=')) throw new Error(`found-env.txt was not pushed: ${pushed}`);
    await scanCiRun(scanner, snooping, 'snooping run');
    ran.push(
      `CI-shaped run whose model snoops with ${SNOOPING.length} commands and pushes what it found`,
    );
  } finally {
    await snooping.close();
  }
  const failing = await runCi({
    replies: [{ purpose: 'planning', fault: 'server_error', times: 3 }],
  });
  try {
    await scanCiRun(scanner, failing, 'failing run');
    ran.push('CI-shaped run failing on LLM 5xx');
  } finally {
    await failing.close();
  }
  const local = await startRunWorld({ replies: snoopingReplies() });
  try {
    const { output, exit } = local.spawnChild();
    const code = await exit;
    if (code !== 0) throw new Error(`mr-agent run exited ${code}: ${output().slice(-2000)}`);
    for (const line of output().split('\n')) scanner.scan('log lines', 'mr-agent run', line);
    scanLlmRequests(scanner, local.server, 'mr-agent run');
    for (const [name, text] of Object.entries((await local.state()).files))
      scanner.scan('artifacts (.mr-agent/)', `mr-agent run ${name}`, text);
    ran.push('mr-agent run (child process) with the same snooping model');
  } finally {
    await local.close();
  }
  return ran;
}
