import { createMemoryLogger } from '../../src/log/logger.ts';
import { Redactor } from '../../src/log/redact.ts';
import { ExecaShell } from '../../src/shell/execa-shell.ts';
import type { ToolContext } from '../../src/core/tool.ts';
import { repoRoot } from '../../src/tools/sandbox.ts';

/** A tool context over a real folder and the real shell adapter. */
export async function toolContext(
  dir: string,
  overrides: Partial<ToolContext> = {},
): Promise<ToolContext & { logLines: string[] }> {
  const { logger, lines } = createMemoryLogger({ level: 'debug', redactor: new Redactor() });
  return {
    root: await repoRoot(dir),
    shell: new ExecaShell(),
    hostEnv: { PATH: process.env.PATH, HOME: process.env.HOME },
    commandTimeoutMs: 20_000,
    maxOutputChars: 16_000,
    logger,
    redactor: new Redactor(),
    ...overrides,
    logLines: lines,
  };
}
