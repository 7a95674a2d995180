import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';

/** A real git repository in a temporary folder, with the given files committed. */
export async function makeTempRepo(
  files: Record<string, string> = {},
  options: { git?: boolean } = {},
): Promise<{ dir: string; cleanup(): Promise<void> }> {
  const base = await mkdtemp(path.join(tmpdir(), 'mr-agent-test-'));
  const dir = path.join(base, 'repo');
  await mkdir(dir);
  await writeFiles(dir, files);
  if (options.git !== false) {
    const env = {
      GIT_AUTHOR_NAME: 'Test',
      GIT_AUTHOR_EMAIL: 'test@example.com',
      GIT_COMMITTER_NAME: 'Test',
      GIT_COMMITTER_EMAIL: 'test@example.com',
    };
    await execa('git', ['init', '-q', '-b', 'main'], { cwd: dir });
    await execa('git', ['add', '-A'], { cwd: dir });
    await execa('git', ['commit', '-q', '--allow-empty', '-m', 'initial'], { cwd: dir, env });
  }
  return { dir, cleanup: () => rm(base, { recursive: true, force: true }) };
}

export async function writeFiles(dir: string, files: Record<string, string>): Promise<void> {
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(dir, name);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, content);
  }
}
