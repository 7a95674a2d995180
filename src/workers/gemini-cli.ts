import path from 'node:path';
import { clip, fallbackSummary, lastJsonObject, recordField, stringField } from './output.ts';
import type { CliWorkerSpec, ParsedWorkerOutput } from './spec.ts';

/**
 * Google Gemini CLI, headless: `gemini --prompt=<text> --output-format json
 * [--model m] --approval-mode <mode>`. It prints `{response, stats, error?}`.
 * `--approval-mode yolo` auto-approves every tool inside an outer sandbox;
 * Gemini's own `--sandbox` is never used: the outer sandbox is the one that counts.
 */
export const geminiCli: CliWorkerSpec = {
  kind: 'gemini-cli',
  binary: 'gemini',
  install: 'npm install -g @google/gemini-cli',
  credentialEnv: [
    ['GEMINI_API_KEY'],
    ['GOOGLE_API_KEY'],
    ['GOOGLE_GENAI_USE_VERTEXAI', 'GOOGLE_CLOUD_PROJECT'],
  ],
  credentialFiles: (env) => {
    const dir = path.join(env.HOME ?? '~', '.gemini');
    return [path.join(dir, 'oauth_creds.json'), path.join(dir, '.env')];
  },
  credentialHint:
    'add `GEMINI_API_KEY: env:GEMINI_API_KEY` under runner.worker.env (or GOOGLE_API_KEY, or GOOGLE_GENAI_USE_VERTEXAI with GOOGLE_CLOUD_PROJECT), or log in once with `gemini` so ~/.gemini holds the credentials',
  // `--prompt=<text>` keeps a prompt that starts with "-" from being read as a flag.
  promptOnStdin: false,
  args: ({ prompt, model, sandbox }) => [
    `--prompt=${prompt}`,
    '--output-format',
    'json',
    ...(model ? ['--model', model] : []),
    '--approval-mode',
    sandbox === 'outer' ? 'yolo' : 'auto_edit',
  ],
  env: () => ({}),
  parseOutput: parseGeminiOutput,
};

export function parseGeminiOutput(stdout: string, stderr: string): ParsedWorkerOutput {
  const reply = lastJsonObject(stdout) ?? lastJsonObject(stderr);
  if (!reply || !('response' in reply || 'error' in reply))
    return { summary: fallbackSummary(stdout, stderr) };
  const response = stringField(reply, 'response') ?? '';
  const summary = response ? clip(response, 4000) : '(no final message from the agent)';
  const error = recordField(reply, 'error');
  if (error) {
    const kind = stringField(error, 'type');
    const message = stringField(error, 'message') ?? 'error';
    return { summary, error: kind ? `${kind}: ${message}` : message };
  }
  return { summary };
}
