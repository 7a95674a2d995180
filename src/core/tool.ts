import type * as z from 'zod';
import type { Logger } from '../log/logger.ts';
import type { Redactor } from '../log/redact.ts';
import type { EnvironmentRunner } from './environment.ts';
import type { CommandIsolation } from './isolation.ts';
import type { Shell } from './shell-port.ts';

/** The checkout the tools are confined to. */
export interface RepoRoot {
  /** The repository folder as given (absolute). */
  dir: string;
  /** The same folder with every symbolic link resolved. */
  real: string;
}

/** What every tool may use; built once per run. */
export interface ToolContext {
  root: RepoRoot;
  shell: Shell;
  /** The host environment; commands get `sandboxEnv(hostEnv)` only. */
  hostEnv: Readonly<Record<string, string | undefined>>;
  /** Who runs `run_command`'s commands (docs/security.md); absent: the agent's own user. */
  isolation?: CommandIsolation;
  /** How commands run inside the selected environment, once the environment phase set it up. */
  environment?: EnvironmentRunner;
  commandTimeoutMs: number;
  /** Output kept for the model per call. */
  maxOutputChars: number;
  logger: Logger;
  redactor: Redactor;
  signal?: AbortSignal;
  /** The request (MR, issue or task text) the `read_request` tool returns. */
  requestText?: string;
}

export interface Tool<A = unknown> {
  name: string;
  description: string;
  args: z.ZodType<A>;
  /**
   * The tool fits its own output (redacted) to `maxOutputChars`, counting
   * what it cut; the registry then does not cut it a second time.
   */
  capsOwnOutput?: boolean;
  run(args: A, ctx: ToolContext): Promise<string>;
}
