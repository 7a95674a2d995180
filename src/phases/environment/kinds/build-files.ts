import { readFile, stat } from 'node:fs/promises';

/** Whether a build file exists (test-command guesses look only at names and a little text). */
export async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

/** A build file's text, or undefined when it cannot be read. */
export async function readText(file: string): Promise<string | undefined> {
  return readFile(file, 'utf8').catch(() => undefined);
}

/** The folder a setup command runs in: `cd <dir> && …` of the generated commands. */
export function folderOf(command: string): string {
  const match = /^\s*cd\s+(['"]?)([^'"\s]+)\1\s*&&/.exec(command);
  return match ? match[2]! : '.';
}
