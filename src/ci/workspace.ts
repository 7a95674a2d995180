import { appendFile, mkdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
// the cache folder's name alone: the environments' registry loads after the first note
import { CACHE_DIR } from './cache-dir.ts';

/** Folders the agent writes into the checkout that must never be committed. */
export const AGENT_FOLDERS = ['.mr-agent/', `${CACHE_DIR}/`] as const;

/**
 * Keeps the agent's own folders (state, dependency caches) out of the
 * change it commits: adds them to `.git/info/exclude` of the job's checkout,
 * once. Returns false when the folder is not a plain git checkout.
 */
export async function excludeAgentFolders(projectDir: string): Promise<boolean> {
  const gitDir = path.join(projectDir, '.git');
  const info = await stat(gitDir).catch(() => undefined);
  if (!info?.isDirectory()) return false;
  const file = path.join(gitDir, 'info', 'exclude');
  await mkdir(path.dirname(file), { recursive: true });
  const current = await readFile(file, 'utf8').catch(() => '');
  const lines = new Set(current.split('\n').map((l) => l.trim()));
  const missing = AGENT_FOLDERS.filter((folder) => !lines.has(folder));
  if (missing.length > 0) {
    const prefix = current === '' || current.endsWith('\n') ? '' : '\n';
    await appendFile(file, `${prefix}# mr-agent\n${missing.join('\n')}\n`);
  }
  return true;
}
