/**
 * Credentials out of the checkout's git directory, before the first command
 * runs. GitLab Runner before 18.0 clones with the job token in the remote
 * URL (`https://gitlab-ci-token:<token>@host/…`) and leaves it in
 * `.git/config`; the command user reads that file (its own git needs it),
 * so the URL would hand the token to any command. The agent never needs
 * those credentials afterwards: its git sends the token as a header for the
 * remote it pushes to (src/shell/git.ts).
 *
 * Every text file of the git directory that can hold a URL — the
 * configuration (the repository's, submodules', worktrees'), `FETCH_HEAD`,
 * the reflogs — loses the user and password part of its URLs, and every
 * secret value the caller names is cut out wherever it stands. The object
 * store and the index hold no URL and are left alone.
 */
import { lstat, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** `scheme://userinfo@` of any URL: the userinfo goes (also a lone token in the user part). */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^/\s@'"]+@/gi;

/** Files and folders of a git directory never scanned: objects, packs, the index. */
const SKIPPED = new Set(['objects', 'index', 'lfs', 'rr-cache']);
const MAX_FILE_BYTES = 4 * 1024 * 1024;

function scrubbed(text: string, secrets: readonly string[]): string {
  let out = text.replace(URL_USERINFO, '$1');
  for (const secret of secrets) if (secret.length >= 6) out = out.split(secret).join('');
  return out;
}

async function scrubFile(file: string, secrets: readonly string[]): Promise<boolean> {
  const text = await readFile(file, 'utf8');
  const clean = scrubbed(text, secrets);
  if (clean === text) return false;
  await writeFile(file, clean);
  return true;
}

/**
 * Removes credentials from the git directory's text files; returns the files
 * changed (relative to the git directory). Links are not followed.
 */
export async function removeCheckoutCredentials(
  gitDir: string,
  secrets: readonly string[] = [],
): Promise<string[]> {
  const changed: string[] = [];
  const visit = async (dir: string, depth: number): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (depth === 0 && SKIPPED.has(entry.name)) continue;
      if (entry.name === 'objects' || entry.name === 'index') continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        await visit(full, depth + 1);
        continue;
      }
      if (!entry.isFile()) continue;
      const info = await lstat(full);
      if (info.size > MAX_FILE_BYTES) continue;
      if (await scrubFile(full, secrets).catch(() => false))
        changed.push(path.relative(gitDir, full));
    }
  };
  await visit(gitDir, 0);
  return changed;
}
