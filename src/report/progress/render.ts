/**
 * Renders the progress note (SPEC H1) from `ProgressState` — a pure function
 * of the state, with no clock inside, so an unchanged state renders the same
 * text and the publisher can skip the edit. Layout: hidden marker, header
 * with state and job link, the result once finished, phases as a table and a
 * Mermaid flowchart, the plan checklist, environment, reviews, token usage.
 */
import { renderMarker } from '../../core/marker.ts';
import { formatCost, formatCount, formatDuration, formatTimestamp } from '../format.ts';
import { link, oneLine, safeProse, tableCell } from '../markdown.ts';
import { renderPlanSection } from './checklist.ts';
import { PHASE_ICONS, renderPhaseFlowchart } from './mermaid.ts';
import { currentPhase } from './state.ts';
import type { FinalState, ProgressState, ReviewResult } from '../../core/progress.ts';
import { PHASE_DISPLAY_NAMES, PHASES } from '../../core/progress.ts';

export const FINAL_LABELS: Readonly<Record<FinalState, string>> = {
  complete: '✅ Complete',
  failed: '❌ Failed',
  cancelled: '🛑 Cancelled',
  interrupted: '⚠️ Interrupted',
  awaiting_answer: '❓ Waiting for an answer',
  needs_human: '🙋 Needs human help',
};

const VERDICT_ICONS: Readonly<Record<ReviewResult, string>> = {
  PASS: '✅',
  PASS_WITH_SUGGESTIONS: '💡',
  FAIL: '❌',
};

function phaseLabel(phase: string): string {
  return (PHASE_DISPLAY_NAMES as Record<string, string>)[phase] ?? phase;
}

function header(s: ProgressState): string[] {
  const title = oneLine(safeProse(s.title), 200) || s.taskId;
  const running = currentPhase(s);
  const state = s.final
    ? FINAL_LABELS[s.final.state]
    : `🔄 Running${running ? ` — ${PHASE_DISPLAY_NAMES[running]}` : ''}`;
  const when = [`**Started**: ${formatTimestamp(s.startedAt)}`];
  if (s.final) {
    when.push(`**Finished**: ${formatTimestamp(s.final.finishedAt)}`);
    when.push(`**Duration**: ${formatDuration(s.final.finishedAt - s.startedAt)}`);
  }
  if (s.replans > 0) when.push(`**Replans**: ${s.replans}`);
  const job = s.jobUrl ? ` · ${link(`Job #${s.jobId ?? '?'}`, s.jobUrl)}` : '';
  const lines = [
    `## 🤖 mr-agent · ${title}`,
    '',
    `**State**: ${state}${job}`,
    '',
    when.join(' · '),
  ];
  for (const notice of s.notices) lines.push('', `> ⚠️ ${oneLine(safeProse(notice), 500)}`);
  return lines;
}

function result(s: ProgressState): string[] {
  if (!s.final) return [];
  const summary = safeProse(s.final.summary) || '_No summary._';
  return ['', '### Result', '', summary];
}

function phaseTime(s: ProgressState, phase: (typeof PHASES)[number]): string {
  const p = s.phases[phase];
  if (phase === 'complete') return '';
  const repeats = (p.runs ?? 0) > 1 ? ` (×${p.runs})` : '';
  if (p.state === 'running')
    return `since ${formatTimestamp(p.startedAt ?? s.startedAt).slice(11)}${repeats}`;
  if (p.totalMs !== undefined && p.startedAt !== undefined)
    return `${formatDuration(p.totalMs)}${repeats}`;
  return '';
}

function phases(s: ProgressState): string[] {
  const rows = PHASES.map((phase) => {
    const p = s.phases[phase];
    const detail = p.detail ? tableCell(safeProse(p.detail)) : '';
    return `| ${PHASE_DISPLAY_NAMES[phase]} | ${PHASE_ICONS[p.state]} ${p.state} | ${phaseTime(s, phase)} | ${detail} |`;
  });
  return [
    '',
    '### Phases',
    '',
    '| Phase | State | Time | Note |',
    '| --- | --- | --- | --- |',
    ...rows,
    '',
    renderPhaseFlowchart(s),
  ];
}

function environment(s: ProgressState): string[] {
  const env = s.environment;
  if (!env) return [];
  const status = {
    ready: '✅ ready',
    failed_with_warnings: '⚠️ setup failed — continuing with warnings',
    skipped: '⏭️ setup skipped',
  }[env.status];
  const parts = [`**${oneLine(safeProse(env.name), 60)}**: ${status}`];
  if (env.setupCommands !== undefined) parts.push(`${env.setupCommands} setup commands`);
  if (env.verificationsTotal !== undefined) {
    parts.push(`verification ${env.verificationsPassed ?? 0}/${env.verificationsTotal} passed`);
  }
  if (env.durationMs !== undefined) parts.push(formatDuration(env.durationMs));
  const lines = ['', '### 🧰 Environment', '', parts.join(' · ')];
  if (env.detail) lines.push('', oneLine(safeProse(env.detail), 500));
  return lines;
}

function reviews(s: ProgressState): string[] {
  if (s.reviews.length === 0) return [];
  const rows = s.reviews.map((r) => {
    const attempt = r.maxAttempts ? `${r.attempt}/${r.maxAttempts}` : String(r.attempt);
    const feedback = r.feedback ? tableCell(safeProse(r.feedback), 300) : '';
    return `| ${phaseLabel(r.phase)} | ${VERDICT_ICONS[r.result]} ${r.result} | ${attempt} | ${feedback} |`;
  });
  return [
    '',
    '### 🔍 Reviews',
    '',
    '| Phase | Verdict | Attempt | Feedback |',
    '| --- | --- | --- | --- |',
    ...rows,
  ];
}

function usage(s: ProgressState): string[] {
  const roles = Object.entries(s.usage.byRole).sort(([a], [b]) => a.localeCompare(b));
  if (roles.length === 0) return [];
  const total = { calls: 0, prompt: 0, completion: 0 };
  const rows = roles.map(([role, u]) => {
    total.calls += u.calls;
    total.prompt += u.promptTokens;
    total.completion += u.completionTokens;
    const sum = u.promptTokens + u.completionTokens;
    return `| ${tableCell(role, 40)} | ${u.calls} | ${formatCount(u.promptTokens)} | ${formatCount(u.completionTokens)} | ${formatCount(sum)} |`;
  });
  const totalRow = `| **Total** | ${total.calls} | ${formatCount(total.prompt)} | ${formatCount(total.completion)} | ${formatCount(total.prompt + total.completion)} |`;
  const lines = [
    '',
    '### 📊 Token usage',
    '',
    '| Role | Calls | Prompt | Completion | Total |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...rows,
    totalRow,
  ];
  if (s.usage.costUsd !== undefined) {
    lines.push('', `Estimated cost: ${formatCost(s.usage.costUsd)}`);
  }
  return lines;
}

function links(s: ProgressState): string[] {
  if (s.links.length === 0) return [];
  const items = s.links.map((l) => link(l.label, l.url));
  return ['', `**Links**: ${items.join(' · ')}`];
}

function footer(s: ProgressState): string {
  const task = oneLine(s.taskId, 80).replace(/[<>]/g, '');
  const tail = s.final ? 'final state' : 'this note is edited in place while the run goes on';
  return `<sub>mr-agent · task ${task} · ${tail}</sub>`;
}

/** The full progress-note markdown, hidden marker first. */
export function renderProgressNote(s: ProgressState): string {
  const marker = renderMarker({
    kind: 'progress',
    job: s.jobId,
    pipeline: s.pipelineId,
    task: s.taskId,
    state: s.final ? s.final.state : 'running',
  });
  const lines = [
    marker,
    ...header(s),
    ...result(s),
    ...phases(s),
    ...(s.plan ? ['', renderPlanSection(s.plan)] : []),
    ...environment(s),
    ...reviews(s),
    ...usage(s),
    ...links(s),
    '',
    footer(s),
  ];
  return `${lines.join('\n')}\n`;
}
