import { spawn } from 'node:child_process';
import os from 'node:os';
import { cliBundle } from '../../support/cli-bundle.ts';

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
  // the command bundled as `npm run build` bundles it, once per test process
  const bin = await cliBundle();
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
