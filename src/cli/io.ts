/** What the CLI needs from the process: passed in so tests use plain objects. */
export interface CliIo {
  argv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown; isTTY?: boolean };
  /** Reads all of stdin; undefined when stdin is a terminal or absent. */
  readStdin(): Promise<string | undefined>;
  /** Registers a SIGTERM/SIGINT/SIGHUP handler; returns a function that removes it. */
  onSignal?(handler: (signal: string) => void): () => void;
  /** Ends the process at once (after a termination signal, once the run's end is written). */
  exit?(code: number): void;
}

export function useColor(io: CliIo): boolean {
  return Boolean(io.stderr.isTTY) && io.env.NO_COLOR === undefined && io.env.CI !== 'true';
}
