/**
 * The Task Note (headings in English, whatever the notes' language): a markdown
 * report of the run at `<state dir>/task-<id>.md`, kept as a job artifact.
 * Long outputs keep their tail (where errors usually are); everything is
 * redacted before it is written.
 */
import { cutText } from '../core/text.ts';
import path from 'node:path';
import { stringify } from 'yaml';
import { writeFileAtomic } from '../history/atomic.ts';
import { safeFileName } from '../history/paths.ts';
import type { Redactor } from '../log/redact.ts';
import { fence } from './markdown.ts';

export interface AcceptanceCriterion {
  id: string;
  description: string;
  passed: boolean;
}

/** One call of the planning/assessment model (a "meta" call, as opposed to a worker action). */
export interface MetaCallLog {
  type: string;
  timestamp: number;
  request: unknown;
  response: unknown;
}

/** One worker run: an executed action or an external worker invocation. */
export interface WorkerRunLog {
  id: string;
  startedAt: number;
  finishedAt: number;
  exitCode: number;
  rawOutput: string;
}

export interface TestResultLog {
  command: string;
  exitCode: number | null;
  summary: string;
  rawOutput: string;
}

export interface TaskNoteData {
  id: string;
  title: string;
  startedAt: number;
  finishedAt?: number;
  state: string;
  summary: string;
  /** A short summary of the request: what was asked, as the product requirement. */
  prdSummary: string;
  /** The full request text. */
  prdText: string;
  acceptanceCriteria: readonly AcceptanceCriterion[];
  metaCalls: readonly MetaCallLog[];
  workerRuns: readonly WorkerRunLog[];
  testResult?: TestResultLog;
  /** Notes and open issues. */
  notes: string;
}

export interface TaskNoteOptions {
  /** Longest output kept per block (its tail), default 20,000 characters. */
  maxOutputChars?: number;
}

const iso = (ms: number | undefined) => (ms === undefined ? '—' : new Date(ms).toISOString());

const tail = (text: string, max: number) => cutText(text, max, { keep: 'end' });

function yamlOf(value: unknown, max: number): string {
  const text = typeof value === 'string' ? value : stringify(value ?? null, { lineWidth: 0 });
  return tail(text, max);
}

function acceptance(items: readonly AcceptanceCriterion[]): string {
  if (items.length === 0) return '_No acceptance criteria were recorded._';
  return items.map((c) => `- [${c.passed ? 'x' : ' '}] ${c.id}: ${c.description}`).join('\n');
}

function metaCalls(calls: readonly MetaCallLog[], max: number): string {
  if (calls.length === 0) return '_None._';
  return calls
    .map((c) =>
      [
        `#### ${c.type} at ${iso(c.timestamp)}`,
        '',
        fence(yamlOf(c.request, max), 'yaml'),
        '',
        fence(yamlOf(c.response, max), 'yaml'),
      ].join('\n'),
    )
    .join('\n\n');
}

function workerRuns(runs: readonly WorkerRunLog[], max: number): string {
  if (runs.length === 0) return '_None._';
  return runs
    .map((r) =>
      [
        `#### Run ${r.id} (ExitCode=${r.exitCode}) at ${iso(r.startedAt)} - ${iso(r.finishedAt)}`,
        '',
        fence(tail(r.rawOutput, max), 'text'),
      ].join('\n'),
    )
    .join('\n\n');
}

function testResult(result: TestResultLog | undefined, max: number): string {
  if (!result) return 'Tests were not run automatically.';
  return [
    `- Command: \`${result.command.replace(/`/g, "'")}\``,
    `- ExitCode: ${result.exitCode ?? '—'}`,
    `- Summary: ${result.summary}`,
    '',
    fence(tail(result.rawOutput, max), 'text'),
  ].join('\n');
}

export function renderTaskNote(data: TaskNoteData, options: TaskNoteOptions = {}): string {
  const max = options.maxOutputChars ?? 20_000;
  const title = data.title ? ` - ${data.title}` : '';
  const sections = [
    [
      `# Task Note - ${data.id}${title}`,
      '',
      `- Task ID: ${data.id}`,
      `- Title: ${data.title}`,
      `- Started At: ${iso(data.startedAt)}`,
      `- Finished At: ${iso(data.finishedAt)}`,
      `- State: ${data.state}`,
    ].join('\n'),
    `## 1. Summary\n\n${data.summary || '_No summary._'}`,
    [
      '## 2. PRD Summary',
      '',
      data.prdSummary || '_No summary._',
      '',
      '<details>',
      '<summary>Full PRD</summary>',
      '',
      fence(tail(data.prdText, max * 5), 'text'),
      '',
      '</details>',
    ].join('\n'),
    `## 3. Acceptance Criteria\n\n${acceptance(data.acceptanceCriteria)}`,
    [
      '## 4. Execution Log (Meta - Worker)',
      '',
      '### 4.1 Meta Calls',
      '',
      metaCalls(data.metaCalls, max),
      '',
      '### 4.2 Worker Runs',
      '',
      workerRuns(data.workerRuns, max),
    ].join('\n'),
    `## 5. Test Results\n\n${testResult(data.testResult, max)}`,
    `## 6. Notes and Open Issues\n\n${data.notes || '_None._'}`,
  ];
  return `${sections.join('\n\n---\n\n')}\n`;
}

/** `<state dir>/task-<id>.md`. */
export function taskNotePath(stateDir: string, taskId: string): string {
  return path.join(stateDir, `task-${safeFileName(taskId)}.md`);
}

/** Renders, redacts and writes the Task Note atomically; returns its path. */
export async function writeTaskNote(
  stateDir: string,
  data: TaskNoteData,
  redactor: Redactor,
  options: TaskNoteOptions = {},
): Promise<string> {
  const file = taskNotePath(stateDir, data.id);
  await writeFileAtomic(file, redactor.redact(renderTaskNote(data, options)));
  return file;
}
