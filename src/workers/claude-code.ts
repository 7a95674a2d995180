import path from 'node:path';
import { clip, fallbackSummary, lastJsonObject, stringField } from './output.ts';
import type { CliWorkerSpec, ParsedWorkerOutput } from './spec.ts';

/**
 * Anthropic Claude Code, print mode: `claude -p --output-format json
 * [--model m] <permission flags>` with the prompt on stdin. It prints one
 * result object `{type: "result", subtype, is_error, result, num_turns, …}`.
 * Inside an outer sandbox it runs with `--dangerously-skip-permissions`;
 * `IS_SANDBOX=1` declares the container, which Claude Code requires as root.
 */
export const claudeCode: CliWorkerSpec = {
  kind: 'claude-code',
  binary: 'claude',
  install: 'npm install -g @anthropic-ai/claude-code',
  credentialEnv: [
    ['ANTHROPIC_API_KEY'],
    ['CLAUDE_CODE_OAUTH_TOKEN'],
    ['ANTHROPIC_AUTH_TOKEN'],
    ['CLAUDE_CODE_USE_BEDROCK'],
    ['CLAUDE_CODE_USE_VERTEX'],
  ],
  credentialFiles: (env) => [path.join(env.HOME ?? '~', '.claude', '.credentials.json')],
  credentialHint:
    'add `ANTHROPIC_API_KEY: env:ANTHROPIC_API_KEY` (or `CLAUDE_CODE_OAUTH_TOKEN: env:CLAUDE_CODE_OAUTH_TOKEN` from `claude setup-token`) under runner.worker.env, or run `claude` once and log in',
  promptOnStdin: true,
  args: ({ model, sandbox }) => [
    '-p',
    '--output-format',
    'json',
    ...(model ? ['--model', model] : []),
    ...(sandbox === 'outer'
      ? ['--dangerously-skip-permissions']
      : ['--permission-mode', 'acceptEdits']),
  ],
  env: (sandbox): Record<string, string> => (sandbox === 'outer' ? { IS_SANDBOX: '1' } : {}),
  parseOutput: parseClaudeOutput,
};

export function parseClaudeOutput(stdout: string, stderr: string): ParsedWorkerOutput {
  const result = lastJsonObject(stdout);
  if (!result || result.type !== 'result') return { summary: fallbackSummary(stdout, stderr) };
  const text = stringField(result, 'result') ?? '';
  const summary = text ? clip(text, 4000) : '(no final message from the agent)';
  if (result.is_error === true) {
    const subtype = stringField(result, 'subtype') ?? 'error';
    return { summary, error: `${subtype}${text ? `: ${clip(text, 300)}` : ''}` };
  }
  return { summary };
}
