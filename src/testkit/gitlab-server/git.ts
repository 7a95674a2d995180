/**
 * The stand-in's repositories: one bare git repository per project, the real
 * remote that delivery pushes to over file://. Reads (files, diffs, shas) go
 * through real git.
 */
import { execFile, spawn } from 'node:child_process';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

async function git(args: string[], cwd: string): Promise<string> {
  const { stdout } = await run('git', args, {
    cwd,
    maxBuffer: 64 * 1024 * 1024,
    encoding: 'utf8',
  });
  return stdout;
}

async function tryGit(args: string[], cwd: string): Promise<string | undefined> {
  try {
    return await git(args, cwd);
  } catch {
    return undefined;
  }
}

/**
 * The repository's pre-receive hook: refuses a push to a branch matching one
 * of the rules the smart-HTTP server hands it for this pusher (protected
 * branches above the pusher's role, push rules), with GitLab's own words;
 * git shows them as `remote: GitLab: …` and `! [remote rejected] … (pre-receive
 * hook declined)`. `*` in a rule matches any text, as in GitLab. Pushes over
 * file:// carry no rules and pass. The rules are branch rules: a ref outside
 * `refs/heads/` (a tag, or a custom ref such as `refs/mr-agent/…`) is not
 * matched against them, as GitLab applies protected branches to branches only.
 */
const PRE_RECEIVE = `#!/bin/sh
status=0
while read old new ref; do
  case "$ref" in refs/heads/*) ;; *) continue ;; esac
  branch=\${ref#refs/heads/}
  i=0
  while [ "$i" -lt "\${STANDIN_RULE_COUNT:-0}" ]; do
    eval "pattern=\\$STANDIN_RULE_PATTERN_$i; message=\\$STANDIN_RULE_MESSAGE_$i"
    case "$branch" in
      $pattern) echo "GitLab: $message" >&2; status=1 ;;
    esac
    i=$((i + 1))
  done
done
exit $status
`;

export async function initBareRepo(dir: string, defaultBranch: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await git(['init', '--quiet', '--bare', `--initial-branch=${defaultBranch}`, dir], dir);
  const hook = path.join(dir, 'hooks', 'pre-receive');
  await writeFile(hook, PRE_RECEIVE);
  await chmod(hook, 0o755);
}

/** Commits `files` (null deletes) on `branch`, starting from `from` or the branch itself. */
export async function commitFiles(
  repoDir: string,
  branch: string,
  files: Record<string, string | null>,
  options: { message?: string; from?: string } = {},
): Promise<string> {
  const parent = await revParse(repoDir, options.from ?? `refs/heads/${branch}`);
  const message = Buffer.from(options.message ?? 'seed');
  const when = Math.floor(Date.now() / 1000);
  const parts: Buffer[] = [
    Buffer.from(`commit refs/heads/${branch}\n`),
    Buffer.from(`committer Stand-in Seeder <seeder@gitlab.invalid> ${when} +0000\n`),
    Buffer.from(`data ${message.length}\n`),
    message,
    Buffer.from(`\n${parent ? `from ${parent}\n` : ''}`),
  ];
  for (const [file, content] of Object.entries(files)) {
    if (content === null) {
      parts.push(Buffer.from(`D ${file}\n`));
      continue;
    }
    const data = Buffer.from(content);
    parts.push(
      Buffer.from(`M 100644 inline ${file}\ndata ${data.length}\n`),
      data,
      Buffer.from('\n'),
    );
  }
  await new Promise<void>((resolve, reject) => {
    const child = spawn('git', ['fast-import', '--quiet', '--force'], {
      cwd: repoDir,
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`git fast-import: ${stderr}`)),
    );
    child.stdin.end(Buffer.concat(parts));
  });
  return (await revParse(repoDir, `refs/heads/${branch}`))!;
}

export async function revParse(repoDir: string, ref: string): Promise<string | undefined> {
  const out = await tryGit(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], repoDir);
  return out?.trim() || undefined;
}

/** A file's bytes on a ref, or undefined when ref or file is missing. */
export async function readBlob(
  repoDir: string,
  ref: string,
  file: string,
): Promise<Buffer | undefined> {
  if (ref.startsWith('-') || file.includes('\0')) return undefined;
  try {
    const { stdout } = await run('git', ['cat-file', 'blob', `${ref}:${file}`], {
      cwd: repoDir,
      encoding: 'buffer',
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout;
  } catch {
    return undefined;
  }
}

/** Copies `branch` of another repository into `ref` of this one (fork merge requests). */
export async function fetchRef(repoDir: string, fromRepo: string, branch: string, ref: string) {
  await tryGit(['fetch', '--quiet', '--force', fromRepo, `refs/heads/${branch}:${ref}`], repoDir);
}

/** Copies every branch of another repository (creating a fork). */
export async function copyBranches(repoDir: string, fromRepo: string): Promise<void> {
  await git(['fetch', '--quiet', fromRepo, '+refs/heads/*:refs/heads/*'], repoDir);
}

export interface FileDiff {
  old_path: string;
  new_path: string;
  new_file: boolean;
  renamed_file: boolean;
  deleted_file: boolean;
  a_mode: string;
  b_mode: string;
  diff: string;
}

function parseSection(section: string): FileDiff {
  const lines = section.split('\n');
  const header = /^diff --git a\/(.+) b\/(.+)$/.exec(lines[0] ?? '');
  const file: FileDiff = {
    old_path: header?.[1] ?? '',
    new_path: header?.[2] ?? '',
    new_file: false,
    renamed_file: false,
    deleted_file: false,
    a_mode: '100644',
    b_mode: '100644',
    diff: '',
  };
  const hunkStart = lines.findIndex((l) => l.startsWith('@@'));
  for (const line of lines.slice(1, hunkStart === -1 ? undefined : hunkStart)) {
    if (line.startsWith('new file mode')) file.new_file = true;
    else if (line.startsWith('deleted file mode')) file.deleted_file = true;
    else if (line.startsWith('rename from ')) {
      file.renamed_file = true;
      file.old_path = line.slice('rename from '.length);
    } else if (line.startsWith('rename to ')) file.new_path = line.slice('rename to '.length);
  }
  if (file.new_file) file.a_mode = '0';
  if (file.deleted_file) file.b_mode = '0';
  file.diff = hunkStart === -1 ? '' : `${lines.slice(hunkStart).join('\n')}\n`;
  return file;
}

/** The merge request diff: what `head` changed since its merge base with `base`. */
export async function diffFiles(repoDir: string, base: string, head: string): Promise<FileDiff[]> {
  const out = await tryGit(['diff', '--no-color', '-M', `${base}...${head}`], repoDir);
  if (!out) return [];
  return out
    .split(/^(?=diff --git )/m)
    .filter((s) => s.startsWith('diff --git '))
    .map((s) => parseSection(s.replace(/\n$/, '')));
}

/** The best common ancestor of two commits, or undefined when they share none. */
export async function mergeBase(
  repoDir: string,
  a: string,
  b: string,
): Promise<string | undefined> {
  const out = await tryGit(['merge-base', a, b], repoDir);
  return out?.trim() || undefined;
}

/** One file's diff between two commits (renames followed), or undefined when either is unknown. */
export async function fileDiff(
  repoDir: string,
  base: string,
  head: string,
  paths: { oldPath: string; newPath: string },
): Promise<string | undefined> {
  if ([base, head].some((sha) => !/^[0-9a-f]{7,64}$/.test(sha))) return undefined;
  const files = [...new Set([paths.oldPath, paths.newPath])];
  return tryGit(['diff', '--no-color', '-M', base, head, '--', ...files], repoDir);
}
