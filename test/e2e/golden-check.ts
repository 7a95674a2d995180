/**
 * What the golden end-to-end test compares: every artifact of a demo run,
 * normalised (temporary paths, ports, commit ids, times, durations and
 * token estimates become placeholders), as name → text.
 */
import { existsSync, realpathSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import type { DemoResult } from '../../src/demo/run-demo.ts';
import { parseMarker } from '../../src/report/marker.ts';
import { taskNotePath } from '../../src/report/task-note.ts';

export const GOLDEN_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '../golden/e2e');

interface Context {
  replacements: Array<[string, string]>;
}

function contextOf(result: DemoResult): Context {
  const gitlab = result.gitlabUrl;
  const llm = new URL(result.llmUrl).origin;
  const commit = result.job.outcome.delivery?.commit;
  const replacements: Array<[string, string]> = [];
  if (commit) replacements.push([commit, '<commit>'], [commit.slice(0, 12), '<commit>']);
  if (commit) replacements.push([commit.slice(0, 8), '<commit>']);
  for (const dir of new Set([result.dir, realpathSync(result.dir)]))
    replacements.push([dir, '<tmp>']);
  replacements.push([gitlab, '<gitlab>'], [llm, '<llm>']);
  return { replacements };
}

/** Placeholders for everything that changes from run to run. */
export function normalise(text: string, ctx: Context): string {
  let out = text;
  for (const [from, to] of ctx.replacements) out = out.split(from).join(to);
  return out
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<iso-time>')
    .replace(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/g, '<time>')
    .replace(/\b[A-Z][a-z]{2} \d{1,2}, \d{4}, \d\d:\d\d UTC/g, '<time>')
    .replace(/\b\d{4}\/\d\d\/\d\d \d{1,2}:\d\d UTC/g, '<time>')
    .replace(/\b\d{1,2}:\d\d UTC\b/g, '<clock>')
    .replace(/("duration_ms": ?|duration_ms )\d+(\.\d+)?/g, '$1<n>')
    .replace(/\b\d+(\.\d+)? ?(ms|s)\b/g, '<duration>')
    .replace(/\b\d+[hm] <duration>/g, '<duration>')
    .replace(/^(\| [^|]+ \| \d+ \|)( [\d,]+ \|){3}$/gm, '$1 <n> | <n> | <n> |')
    .replace(/^(\| [^|]+ \| \d+ \|) [\d,]+ \|$/gm, '$1 <n> |')
    .replace(/\b[\d,]+ (tokens|トークン)\b/g, '<n> $1')
    .replace(/(\*\*Tokens\*\*: )[\d,]+/g, '$1<n>')
    .replace(/^(characters: )\d+$/gm, '$1<n>');
}

/**
 * The Task Note's worker runs show the first 300 characters of each tool
 * output; where that cut falls moves with the length of the durations in it,
 * so those excerpts are compared as one placeholder line each.
 */
export function withoutToolExcerpts(taskNote: string): string {
  const start = taskNote.indexOf('### 4.2 Worker Runs');
  const end = taskNote.indexOf('## 5.', start);
  if (start < 0 || end < 0) return taskNote;
  const kept: string[] = [];
  for (const line of taskNote.slice(start, end).split('\n')) {
    const excerpt = kept.at(-1) === '(tool output)';
    if (/^(#|```|---|\$ |task_\d|DONE|FAILED)/.test(line)) kept.push(line);
    else if (line === '' && !excerpt) kept.push(line);
    else if (!excerpt && line !== '') kept.push('(tool output)');
  }
  return taskNote.slice(0, start) + kept.join('\n') + taskNote.slice(end);
}

function noteOfKind(result: DemoResult, kind: string): string {
  for (const body of result.notes.values()) if (parseMarker(body)?.kind === kind) return body;
  return `(no ${kind} note)`;
}

/** result.json with its run-dependent numbers replaced. */
function resultJson(text: string): string {
  const value = JSON.parse(text) as Record<string, unknown> & {
    tokens: Record<string, unknown> & { by_role: Record<string, { calls: number }> };
  };
  const byRole = Object.fromEntries(
    Object.entries(value.tokens.by_role).map(([role, u]) => [role, { calls: u.calls }]),
  );
  return `${JSON.stringify({ ...value, tokens: { by_role: byRole } }, null, 2)}\n`;
}

async function git(cwd: string, ...args: string[]): Promise<string> {
  return String((await execa('git', args, { cwd })).stdout);
}

/** The pushed commit: message, author, parent and diff. */
async function commitText(result: DemoResult): Promise<string> {
  const sha = result.job.outcome.delivery?.commit;
  if (!sha) return '(nothing was pushed)\n';
  const tip = (await git(result.remoteDir, 'rev-parse', `refs/heads/${result.branch}`)).trim();
  const head = await git(
    result.remoteDir,
    'show',
    '-s',
    '--format=%s%n%n%b%nAuthor: %an <%ae>',
    sha,
  );
  const parent = await git(result.remoteDir, 'show', '-s', '--format=Parent: %s', `${sha}^`);
  const diff = await git(result.remoteDir, 'show', '--format=', '--no-color', sha);
  return `Branch tip is the commit: ${tip === sha}\n${head.trimEnd()}\n${parent}\n\n${diff}\n`;
}

/** Method, path and count of every GitLab API request; progress-note edits are counted as `n`. */
function apiCalls(result: DemoResult): string {
  const counts = new Map<string, number>();
  for (const r of result.gitlabRequests) {
    const key = `${r.method} ${r.path} → ${r.status}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const edit = `PUT /api/v4/projects/`;
  return `${[...counts]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, n]) => `${key} ×${key.startsWith(edit) && key.includes('/notes/') ? 'n' : n}`)
    .join('\n')}\n`;
}

function llmCalls(result: DemoResult): string {
  return `${result.llmRequests
    .map((r) => `${r.purpose ?? '-'} → reply #${(r.replyIndex ?? -1) + 1} (${r.outcome})`)
    .join(
      '\n',
    )}\nunused replies: ${result.unusedReplies.length ? result.unusedReplies.join('; ') : 'none'}\n`;
}

/** Every compared artifact of one demo run, normalised. */
export async function goldenArtifacts(result: DemoResult): Promise<Record<string, string>> {
  const ctx = contextOf(result);
  const { paths } = result.job.reporting;
  const read = async (file: string) =>
    existsSync(file) ? normalise(await readFile(file, 'utf8'), ctx) : `(missing ${file})`;
  const progress = result.progressNoteId ? result.notes.get(result.progressNoteId) : undefined;
  const metadata = JSON.parse(await readFile(paths.metadata, 'utf8')) as {
    phases: Record<string, { status: string }>;
  };
  const phases = Object.fromEntries(
    Object.entries(metadata.phases).map(([name, p]) => [name, p.status]),
  );
  return {
    'progress-note.md': normalise(progress ?? '(no progress note)', ctx),
    'summary-note.md': normalise(noteOfKind(result, 'summary'), ctx),
    'commit.txt': normalise(await commitText(result), ctx),
    'result.json': normalise(resultJson(await readFile(paths.result, 'utf8')), ctx),
    'task-note.md': withoutToolExcerpts(
      await read(taskNotePath(paths.stateDir, result.job.taskId)),
    ),
    'history.jsonl': await read(path.join(paths.historyDir, `${result.job.taskId}.jsonl`)),
    'metadata-phases.json': `${JSON.stringify(phases, null, 2)}\n`,
    'gitlab-api.txt': normalise(apiCalls(result), ctx),
    'llm-calls.txt': llmCalls(result),
  };
}

/** Names of the artifacts that differ from the golden files (a missing golden file differs). */
export async function goldenMismatches(result: DemoResult): Promise<string[]> {
  const artifacts = await goldenArtifacts(result);
  const differing: string[] = [];
  for (const [name, text] of Object.entries(artifacts)) {
    const file = path.join(GOLDEN_DIR, name);
    const golden = existsSync(file) ? await readFile(file, 'utf8') : undefined;
    if (golden !== text) differing.push(name);
  }
  return differing;
}
