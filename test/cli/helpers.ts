import { main } from '../../src/cli/main.ts';
import type { CliIo } from '../../src/cli/io.ts';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in-process with plain objects for its environment. */
export async function runCli(
  argv: string[],
  options: { env?: Record<string, string>; cwd?: string; stdin?: string } = {},
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    argv,
    env: options.env ?? {},
    cwd: options.cwd ?? process.cwd(),
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    readStdin: async () => options.stdin,
  };
  const code = await main(io);
  return { code, stdout, stderr };
}
