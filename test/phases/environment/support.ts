import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { promptFiles } from '../../../src/llm/prompt-files.ts';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { LlmPort } from '../../../src/core/llm-port.ts';
import { createMemoryLogger } from '../../../src/log/logger.ts';
import { Redactor } from '../../../src/log/redact.ts';
import { FakeClock } from '../../../src/core/clock.ts';
import { ExecaShell } from '../../../src/shell/execa-shell.ts';
import { sandboxEnv } from '../../../src/shell/sandbox-env.ts';
import type { SetupDeps } from '../../../src/phases/environment/setup.ts';

/** A temporary folder with the given files (path → content); removed by `cleanup`. */
export function tempRepo(files: Record<string, string> = {}): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'mr-agent-env-'));
  writeFiles(dir, files);
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), content);
  }
}

/** Real processes (execa), a fake clock and a memory logger. */
export function realDeps(cwd: string, llm: LlmPort, extra: Partial<SetupDeps> = {}) {
  const clock = new FakeClock();
  const { logger, lines } = createMemoryLogger({
    redactor: new Redactor(),
    level: 'debug',
    format: 'json',
  });
  const deps: SetupDeps = {
    shell: new ExecaShell(),
    clock,
    logger,
    llm,
    cwd,
    env: sandboxEnv(process.env),
    timeoutMs: 60_000,
    prompts: promptFiles(),
    ...extra,
  };
  return { deps, clock, lines };
}
