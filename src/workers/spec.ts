import type { ExternalWorkerKind, SandboxMode } from './port.ts';

/** What a worker CLI reported, read from its JSON output. */
export interface ParsedWorkerOutput {
  summary: string;
  /** An error the CLI itself reported (API failure, turn failed…). */
  error?: string;
}

/** Everything mr-agent knows about one coding CLI. */
export interface CliWorkerSpec {
  kind: ExternalWorkerKind;
  /** The executable looked up on PATH. */
  binary: string;
  /** How to install it, for the availability error. */
  install: string;
  /** Alternative credential variables; every name of one alternative must be set. */
  credentialEnv: readonly (readonly string[])[];
  /** Credential files a login leaves behind (absolute paths, from the worker's environment). */
  credentialFiles(env: Readonly<Record<string, string>>): string[];
  /** How to provide a credential, for the availability error. */
  credentialHint: string;
  /** True when the prompt goes to stdin; otherwise `args` carries it. */
  promptOnStdin: boolean;
  /** The arguments after the binary, in the documented non-interactive form. */
  args(input: { prompt: string; repoDir: string; model?: string; sandbox: SandboxMode }): string[];
  /** Variables the adapter adds for the given sandbox mode. */
  env(sandbox: SandboxMode): Record<string, string>;
  parseOutput(stdout: string, stderr: string): ParsedWorkerOutput;
}

/** Quotes one argument for `sh -c` (single quotes; embedded quotes closed and escaped). */
export function shellQuote(arg: string): string {
  if (/^[A-Za-z0-9_./:=@%+-]+$/.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/**
 * The command line run through the shell port. `exec` makes the CLI replace
 * the shell, so the SIGTERM of a timeout reaches the CLI itself.
 */
export function commandLine(binary: string, args: readonly string[]): string {
  return ['exec', shellQuote(binary), ...args.map(shellQuote)].join(' ');
}
