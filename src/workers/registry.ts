import { claudeCode } from './claude-code.ts';
import { codexCli } from './codex-cli.ts';
import { geminiCli } from './gemini-cli.ts';
import { EXTERNAL_WORKER_KINDS, type ExternalWorkerKind, type SandboxMode } from './port.ts';
import type { CliWorkerSpec } from './spec.ts';

/** Worker kind → CLI adapter. A new CLI is one more spec here. */
export const CLI_WORKERS: Readonly<Record<ExternalWorkerKind, CliWorkerSpec>> = {
  'codex-cli': codexCli,
  'claude-code': claudeCode,
  'gemini-cli': geminiCli,
};

export function isExternalWorkerKind(kind: string): kind is ExternalWorkerKind {
  return (EXTERNAL_WORKER_KINDS as readonly string[]).includes(kind);
}

/**
 * The sandbox mode for a configured value: `auto` means the CI job container
 * is the outer sandbox when `CI=true`, and the CLI's own sandbox otherwise
 * (the bypass flags are never used on a developer host).
 */
export function resolveSandbox(
  configured: 'auto' | SandboxMode,
  host: Readonly<Record<string, string | undefined>>,
): SandboxMode {
  if (configured !== 'auto') return configured;
  return host.CI === 'true' || host.GITLAB_CI === 'true' ? 'outer' : 'cli';
}
