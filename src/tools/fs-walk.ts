import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { ToolError } from './registry.ts';

/** Folders never descended into when listing or searching recursively. */
export const SKIPPED_DIRS = new Set([
  '.git',
  '.mr-agent',
  'node_modules',
  '.venv',
  'venv',
  '__pycache__',
  '.mypy_cache',
  '.pytest_cache',
  '.tox',
  'dist',
  'build',
  'target',
  'vendor',
  '.gradle',
  '.idea',
  '.next',
  'coverage',
]);

export interface WalkEntry {
  absolute: string;
  /** Repository-relative with forward slashes. */
  rel: string;
  kind: 'file' | 'dir' | 'link' | 'other';
}

/**
 * Walks a folder breadth-first without following symbolic links, skipping
 * `.git` and the usual dependency/build folders, stopping after `limit` entries.
 */
export async function walk(
  start: string,
  relStart: string,
  options: { recursive: boolean; limit: number },
): Promise<{ entries: WalkEntry[]; truncated: boolean }> {
  const entries: WalkEntry[] = [];
  const queue: Array<{ abs: string; rel: string }> = [{ abs: start, rel: relStart }];
  while (queue.length > 0) {
    const dir = queue.shift()!;
    const items = await readdir(dir.abs, { withFileTypes: true });
    items.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const item of items) {
      if (item.name === '.git') continue;
      const rel = dir.rel === '.' || dir.rel === '' ? item.name : `${dir.rel}/${item.name}`;
      const absolute = path.join(dir.abs, item.name);
      const kind = item.isSymbolicLink()
        ? 'link'
        : item.isDirectory()
          ? 'dir'
          : item.isFile()
            ? 'file'
            : 'other';
      if (entries.length >= options.limit) return { entries, truncated: true };
      entries.push({ absolute, rel, kind });
      if (kind === 'dir' && options.recursive && !SKIPPED_DIRS.has(item.name))
        queue.push({ abs: absolute, rel });
    }
  }
  return { entries, truncated: false };
}

/** Turns a file-system error into a message for the model. */
export function fsProblem(error: unknown, shown: string): ToolError {
  const code = (error as NodeJS.ErrnoException).code;
  const reasons: Record<string, string> = {
    ENOENT: 'no such file or folder',
    EISDIR: 'is a folder, not a file',
    ENOTDIR: 'a part of the path is not a folder',
    EACCES: 'permission denied',
    EEXIST: 'already exists',
  };
  const reason = (code && reasons[code]) ?? (error as Error).message;
  return new ToolError(`${shown}: ${reason}`);
}

/** True when the bytes look binary (a NUL byte near the start). */
export function looksBinary(bytes: Uint8Array): boolean {
  const end = Math.min(bytes.length, 8000);
  for (let i = 0; i < end; i++) if (bytes[i] === 0) return true;
  return false;
}
