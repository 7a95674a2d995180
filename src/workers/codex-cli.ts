import path from 'node:path';
import { clip, fallbackSummary, jsonLines, recordField, stringField } from './output.ts';
import type { CliWorkerSpec, ParsedWorkerOutput } from './spec.ts';

/**
 * OpenAI Codex CLI, non-interactive: `codex exec --json -C <repo> [-m model]
 * <sandbox flags> -` with the prompt on stdin. `--json` prints JSONL events
 * (thread.started, turn.*, item.*); the summary is the last `agent_message`.
 */
export const codexCli: CliWorkerSpec = {
  kind: 'codex-cli',
  binary: 'codex',
  install: 'npm install -g @openai/codex',
  credentialEnv: [['CODEX_API_KEY']],
  credentialFiles: (env) => [
    path.join(env.CODEX_HOME ?? path.join(env.HOME ?? '~', '.codex'), 'auth.json'),
  ],
  credentialHint:
    'add `CODEX_API_KEY: env:CODEX_API_KEY` under runner.worker.env (and set CODEX_API_KEY as a masked CI variable), or run `codex login` so ~/.codex/auth.json exists',
  promptOnStdin: true,
  args: ({ repoDir, model, sandbox }) => [
    'exec',
    '--json',
    '--cd',
    repoDir,
    ...(model ? ['--model', model] : []),
    ...(sandbox === 'outer'
      ? ['--dangerously-bypass-approvals-and-sandbox']
      : ['--sandbox', 'workspace-write']),
    '-',
  ],
  env: () => ({}),
  parseOutput: parseCodexOutput,
};

export function parseCodexOutput(stdout: string, stderr: string): ParsedWorkerOutput {
  const events = jsonLines(stdout);
  if (events.length === 0) return { summary: fallbackSummary(stdout, stderr) };
  let message: string | undefined;
  const files = new Set<string>();
  let commands = 0;
  let error: string | undefined;
  for (const event of events) {
    const item = recordField(event, 'item');
    if (event.type === 'item.completed' && item) {
      if (item.type === 'agent_message') message = stringField(item, 'text') ?? message;
      if (item.type === 'command_execution') commands += 1;
      if (item.type === 'file_change' && Array.isArray(item.changes)) {
        for (const change of item.changes) {
          const changed = stringField(change, 'path');
          if (changed) files.add(changed);
        }
      }
    }
    if (event.type === 'turn.failed')
      error = stringField(recordField(event, 'error'), 'message') ?? 'turn failed';
    if (event.type === 'error') error = stringField(event, 'message') ?? 'error';
  }
  const lines = [message ? clip(message, 4000) : '(no final message from the agent)'];
  if (files.size > 0) lines.push(`Files changed: ${[...files].join(', ')}`);
  if (commands > 0) lines.push(`Commands run: ${commands}`);
  return { summary: lines.join('\n'), ...(error ? { error } : {}) };
}
