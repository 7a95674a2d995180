import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { stringify } from 'yaml';
import type { Redactor } from '../log/redact.ts';
import { fence } from '../core/text.ts';
import { capOutput } from '../workers/output.ts';
import type { WorkerRunRecord } from '../workers/port.ts';
import type { MetaCallLog, TaskContext } from './context.ts';

/**
 * The Task Note (docs/agent-runner.md), with
 * English headings: header bullets, 1 Summary, 2 PRD Summary (full PRD in
 * <details>), 3 Acceptance Criteria, 4 Execution Log (4.1 Meta Calls, 4.2
 * Worker Runs), 5 Test Results, 6 Notes / Open Issues.
 */
const BLOCK_CHARS = 12_000;

function yamlBlock(value: unknown): string {
  return fence(capOutput(stringify(value, { lineWidth: 0 }), BLOCK_CHARS), 'yaml');
}

function metaCall(call: MetaCallLog): string {
  const lines = [`#### ${call.type} at ${call.timestamp}`, ''];
  lines.push(`Request:`, '', yamlBlock(call.request), '');
  if (call.response !== undefined) lines.push('Response:', '', yamlBlock(call.response), '');
  if (call.error) lines.push(`Error: ${call.error}`, '');
  if (call.reasks > 0) lines.push(`Re-asks: ${call.reasks}`, '');
  return lines.join('\n');
}

function workerRun(run: WorkerRunRecord): string {
  const exit = run.exitCode === undefined ? 'none' : String(run.exitCode);
  return [
    `#### Run ${run.id} (ExitCode=${exit}) at ${run.startedAt} - ${run.finishedAt}`,
    '',
    `- Worker: ${run.kind}`,
    `- Summary: ${run.summary.replace(/\n/g, ' / ')}`,
    ...(run.error ? [`- Error: ${run.error}`] : []),
    '',
    fence(capOutput(run.rawOutput, BLOCK_CHARS) || '(no output)', 'text'),
    '',
  ].join('\n');
}

function summaryText(context: TaskContext): string {
  const parts: string[] = [];
  if (context.failure) parts.push(`The task failed: ${context.failure}`);
  if (context.assessment) parts.push(context.assessment.summary);
  if (parts.length === 0) parts.push(context.fsm.state === 'COMPLETE' ? 'Done.' : '(no summary)');
  return parts.join('\n\n');
}

function testSection(context: TaskContext): string {
  const result = context.testResult;
  if (!result) return 'Tests were not run automatically.';
  return [
    `- Command: \`${result.command}\``,
    `- ExitCode: ${result.exitCode ?? 'none'}`,
    `- Summary: ${result.summary}`,
    '',
    fence(capOutput(result.rawOutput, BLOCK_CHARS) || '(no output)', 'text'),
  ].join('\n');
}

function notesSection(context: TaskContext): string {
  const risks = context.assessment?.details.remaining_risks ?? [];
  const notes = [...context.notes, ...risks.map((risk) => `Remaining risk: ${risk}`)];
  return notes.length > 0 ? notes.map((note) => `- ${note}`).join('\n') : '(none)';
}

export function renderTaskNote(context: TaskContext): string {
  const { task } = context;
  const criteria = context.acceptanceCriteria.map(
    (c) => `- [${c.passed ? 'x' : ' '}] ${c.id}: ${c.description}`,
  );
  return [
    `# Task Note - ${task.id}${task.title ? ` - ${task.title}` : ''}`,
    '',
    `- Task ID: ${task.id}`,
    `- Title: ${task.title}`,
    `- Started At: ${context.startedAt}`,
    `- Finished At: ${context.finishedAt ?? ''}`,
    `- State: ${context.fsm.state}`,
    '',
    '---',
    '',
    '## 1. Summary',
    '',
    summaryText(context),
    '',
    '---',
    '',
    '## 2. PRD Summary',
    '',
    context.prdSummary || '(none)',
    '',
    '<details>',
    '<summary>Full PRD</summary>',
    '',
    fence(context.prdText || '(empty)', 'text'),
    '',
    '</details>',
    '',
    '---',
    '',
    '## 3. Acceptance Criteria',
    '',
    criteria.length > 0 ? criteria.join('\n') : '(none were planned)',
    '',
    '---',
    '',
    '## 4. Execution Log (Meta - Worker)',
    '',
    '### 4.1 Meta Calls',
    '',
    ...(context.metaCalls.length > 0 ? context.metaCalls.map(metaCall) : ['(none)', '']),
    '### 4.2 Worker Runs',
    '',
    ...(context.workerRuns.length > 0 ? context.workerRuns.map(workerRun) : ['(none)', '']),
    '---',
    '',
    '## 5. Test Results',
    '',
    testSection(context),
    '',
    '---',
    '',
    '## 6. Notes / Open Issues',
    '',
    notesSection(context),
    '',
  ].join('\n');
}

/** `<dir>/<stateDir>/task-<id>.md`, with characters outside [A-Za-z0-9._-] in the id replaced. */
export function taskNotePath(dir: string, stateDir: string, taskId: string): string {
  return path.join(dir, stateDir, `task-${taskId.replace(/[^A-Za-z0-9._-]/g, '_')}.md`);
}

/** Writes the redacted Task Note (mode 0644) and returns its path. */
export async function writeTaskNote(
  context: TaskContext,
  file: string,
  redactor: Redactor,
): Promise<string> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, redactor.redact(renderTaskNote(context)), { mode: 0o644 });
  return file;
}
