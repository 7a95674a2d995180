import { build } from 'esbuild';
import { spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/**
 * The command bundled the way scripts/build.mjs bundles it (one ESM file,
 * dependencies inlined), into a temp folder, so hardening tests can run the
 * real binary as a child process without the slower declaration build.
 */
let bundled: Promise<string> | undefined;

export function bundledCli(): Promise<string> {
  bundled ??= (async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'mr-agent-hardening-bin-'));
    const outfile = path.join(dir, 'mr-agent.mjs');
    await build({
      entryPoints: [path.resolve(import.meta.dirname, '../../../src/cli/bin.ts')],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node22',
      banner: {
        js: "import { createRequire as __mrAgentCreateRequire } from 'node:module'; const require = __mrAgentCreateRequire(import.meta.url);",
      },
      legalComments: 'none',
      logLevel: 'warning',
    });
    return outfile;
  })();
  return bundled;
}

export interface ChildRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the bundled binary with exactly `env` (plus PATH), optional stdin. */
export async function runBinary(
  argv: readonly string[],
  options: { env?: Record<string, string>; cwd?: string; stdin?: string; timeoutMs?: number } = {},
): Promise<ChildRun> {
  const bin = await bundledCli();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...argv], {
      cwd: options.cwd ?? os.tmpdir(),
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: options.timeoutMs ?? 30_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.stdin ?? '');
  });
}
