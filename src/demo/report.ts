/**
 * What the demo prints before and after the run: the cast (stand-in, model,
 * merge request), then the final notes as GitLab shows them, the pushed
 * commit, where the artifacts are, and the figures.
 */
import path from 'node:path';
import { execa } from 'execa';
import { taskNotePath } from '../report/task-note.ts';
import { parseMarker } from '../report/marker.ts';
import { terminalLines } from '../report/terminal-render.ts';
import { readTree } from './assets.ts';
import { plainLinks, type LiveView } from './live-view.ts';
import type { DemoResult } from './result.ts';
import { STORY, type DemoWorld } from './world.ts';

export function printIntro(
  view: LiveView,
  world: DemoWorld,
  llmUrl: string,
  assetsDir: string,
  story: { comment: string; scenarios: readonly string[] } = {
    comment: STORY.comment,
    scenarios: ['llm-scenario.yaml'],
  },
) {
  const mr = world.mergeRequest;
  view.line(
    view.bold('mr-agent demo — the whole pipeline, offline, on a bundled sample repository'),
  );
  view.line();
  view.line(
    `  GitLab stand-in  ${world.standIn.url}  project ${world.project.path}, remote ${view.dim(`file://${world.project.repoDir}`)}`,
  );
  view.line(
    `  Scripted model   ${llmUrl}  OpenAI-compatible, replies from ${story.scenarios.map((f) => view.dim(path.join(assetsDir, f))).join(' then ')}`,
  );
  view.line();
  view.line(
    `① @${world.developer.username} opened !${mr.iid} "${mr.title}" from ${STORY.sourceBranch}; one of its new tests fails.`,
  );
  view.line(`② @${world.developer.username} comments on !${mr.iid}:  ${view.bold(story.comment)}`);
  view.line(
    view.dim(
      `   (below: the progress note on !${mr.iid} as GitLab has it — mr-agent edits it in place, at most once a second)`,
    ),
  );
}

function indent(lines: readonly string[], prefix = '    '): string[] {
  return lines.map((l) => `${prefix}${l}`);
}

function noteOfKind(result: DemoResult, kind: string): string | undefined {
  for (const body of result.notes.values()) if (parseMarker(body)?.kind === kind) return body;
  return undefined;
}

async function pushedCommit(result: DemoResult, hostPath: string): Promise<string[]> {
  const delivery = result.job.outcome.delivery;
  if (delivery?.status !== 'pushed' || !delivery.commit)
    return [`Nothing was pushed (${delivery?.status ?? 'the run did not complete'}).`];
  const show = await execa(
    'git',
    ['show', '--stat', '--format=%h %s%n%an <%ae>%n%n%b', delivery.commit],
    { cwd: result.remoteDir, reject: false, env: { PATH: hostPath }, extendEnv: false },
  );
  return [
    `⑦ Pushed to ${delivery.branch} in the project's remote (${result.remoteDir}):`,
    ...indent(String(show.stdout).trimEnd().split('\n')),
  ];
}

function artifactLines(result: DemoResult): string[] {
  const { paths } = result.job.reporting;
  const rel = (file: string) => path.relative(result.checkoutDir, file);
  return [
    `Artifacts of job #${result.jobId} (${paths.stateDir}, also stored as the job's artifacts in the stand-in):`,
    `    Task Note       ${rel(taskNotePath(paths.stateDir, result.job.taskId))}`,
    `    result.json     ${rel(paths.result)}`,
    `    history (JSONL) ${rel(path.join(paths.historyDir, `${result.job.taskId}.jsonl`))}`,
    `    metadata.json   ${rel(paths.metadata)}`,
    `    run log         ${path.join(result.dir, 'mr-agent.log')}`,
  ];
}

function figures(result: DemoResult): string {
  const api = result.gitlabRequests;
  const byMethod = new Map<string, number>();
  for (const r of api) byMethod.set(r.method, (byMethod.get(r.method) ?? 0) + 1);
  const methods = [...byMethod].map(([m, n]) => `${m} ${n}`).join(', ');
  const tokens = result.job.outcome.tokens.totalTokens;
  return `${(result.durationMs / 1000).toFixed(1)} s · GitLab API: ${api.length} requests (${methods}) · LLM: ${result.llmRequests.length} requests, ${tokens} tokens`;
}

/** The end of the demo: final notes, the commit, the artifacts, the figures. */
export async function printReport(
  view: LiveView,
  result: DemoResult,
  hostPath: string,
): Promise<void> {
  const outcome = result.job.outcome;
  const progress = result.progressNoteId ? result.notes.get(result.progressNoteId) : undefined;
  view.line();
  view.line(
    view.bold(
      '⑤ The progress note on !1, final state (as GitLab renders it, without the diagram):',
    ),
  );
  if (progress)
    indent(terminalLines(progress, view.color)).forEach((l) => view.line(plainLinks(l, true)));
  const summary = noteOfKind(result, 'summary');
  if (summary) {
    view.line();
    view.line(view.bold('⑥ The summary note on !1:'));
    indent(terminalLines(summary, view.color)).forEach((l) => view.line(plainLinks(l, true)));
  }
  view.line();
  for (const line of await pushedCommit(result, hostPath)) view.line(line);
  view.line();
  for (const line of artifactLines(result)) view.line(line);
  view.line();
  view.line(`${outcome.state === 'COMPLETE' ? '✅' : '❌'} ${outcome.state}: ${figures(result)}`);
  view.line(
    result.kept
      ? `Kept everything in ${result.dir} (remove it when done).`
      : `The temporary folder ${result.dir} was removed; run with --keep to inspect it.`,
  );
}

/** What the GitLab runner does after the job: keep `.mr-agent/` as the job's artifacts. */
export async function storeArtifacts(world: DemoWorld, jobId: number, stateDir: string) {
  const files = await readTree(stateDir).catch(() => ({}) as Record<string, string>);
  const prefixed = Object.fromEntries(
    Object.entries(files).map(([name, text]) => [`${path.basename(stateDir)}/${name}`, text]),
  );
  world.standIn.model.setJobArtifacts(jobId, prefixed);
}
