/**
 * The folded part of the progress note: "Run details · N phases · env · M
 * model calls · T tokens", then the phases on one line, the loop diagram
 * (only when the run looped), the review verdicts, the model calls in at most
 * four groups, earlier plans and the Task Note link.
 */
import { replanHistory } from './replans.ts';
import type { MessageKey } from '../../messages/en.ts';
import {
  formatCost,
  formatCount,
  formatDateTime,
  formatDuration,
  formatList,
} from '../../messages/format.ts';
import type { PhaseName, ProgressState, ReviewVerdict } from '../../core/progress/model.ts';
import { PHASES } from '../../core/progress/model.ts';
import { link, oneLine, safeProse, tableCell } from '../markdown.ts';
import { EMOJI } from '../vocabulary.ts';
import { planHistory } from './checklist.ts';
import { noteState, phaseName, stoppedIn, type Voice } from './headline.ts';
import { renderPhaseFlowchart } from './mermaid.ts';

const VERDICT_EMOJI: Readonly<Record<ReviewVerdict['result'], string>> = {
  PASS: EMOJI.done,
  PASS_WITH_SUGGESTIONS: EMOJI.suggestion,
  FAIL: EMOJI.failed,
};

type UsageGroup = 'execution' | 'planning' | 'reviews' | 'other';

/** Which of the four rows a model call's role counts in. */
export function usageGroup(role: string): UsageGroup {
  if (role === 'execution' || role.startsWith('execution.') || role.startsWith('worker'))
    return 'execution';
  if (role === 'replan.final_evaluation') return 'reviews';
  if (role === 'planning' || role.startsWith('replan')) return 'planning';
  if (/^(review|reflection|completion|verification)/.test(role)) return 'reviews';
  return 'other';
}

function totals(s: ProgressState) {
  let calls = 0;
  let tokens = 0;
  for (const u of Object.values(s.usage.byRole)) {
    calls += u.calls;
    tokens += u.promptTokens + u.completionTokens;
  }
  return { calls, tokens };
}

function phasesRan(s: ProgressState): PhaseName[] {
  return PHASES.filter(
    (p) => p !== 'complete' && s.phases[p].state !== 'pending' && s.phases[p].state !== 'skipped',
  );
}

function environmentNote(s: ProgressState, v: Voice): string {
  const env = s.environment;
  if (!env) return '';
  const parts = [oneLine(safeProse(env.name), 40)];
  if (env.status === 'failed_with_warnings')
    parts.push(`${EMOJI.warning} ${v.m('env.setupFailed')}`);
  if (env.status === 'skipped') parts.push(v.m('env.setupSkipped'));
  if (env.setupCommands) parts.push(v.m('env.setupCommands', { count: env.setupCommands }));
  if (env.verificationsTotal)
    parts.push(
      v.m('env.checks', { passed: env.verificationsPassed ?? 0, total: env.verificationsTotal }),
    );
  if (env.olderNode)
    parts.push(
      v.m('env.olderNode', { major: env.olderNode.major, current: env.olderNode.current }),
    );
  return v.m('punct.aside', { text: parts.join(v.m('punct.comma')) });
}

function phaseStep(s: ProgressState, v: Voice, phase: PhaseName): string {
  const p = s.phases[phase];
  const name = phaseName(v, phase);
  const repeats = (p.runs ?? 0) > 1 ? ` ${v.m('details.repeated', { count: p.runs ?? 0 })}` : '';
  const time =
    p.totalMs !== undefined && p.state !== 'running'
      ? ` ${formatDuration(p.totalMs, v.language)}`
      : '';
  const env = phase === 'environment_setup' ? environmentNote(s, v) : '';
  if (p.state === 'running') return `**${name} ${EMOJI.running}**${env}`;
  if (p.state === 'failed') {
    // a deliberate stop is not a failure: the phase it stopped in shows 🛑 or ⏸️
    const state = noteState(s);
    const stopped = stoppedIn(s) === phase;
    const mark =
      stopped && state === 'cancelled'
        ? EMOJI.cancelled
        : stopped && state === 'paused'
          ? EMOJI.paused
          : EMOJI.failed;
    return `**${name} ${mark}${time}**${repeats}${env}`;
  }
  return `${name}${time}${repeats}${env}`;
}

/** `Pre-planning 31ms → Planning 64ms → … → Verification 347ms` and the skipped phases. */
export function phasesLine(s: ProgressState, v: Voice): string[] {
  const ran = phasesRan(s);
  if (ran.length === 0) return [];
  const skipped = PHASES.filter((p) => p !== 'complete' && s.phases[p].state === 'skipped');
  const chain = ran.map((p) => phaseStep(s, v, p)).join(' → ');
  const tail = skipped.length
    ? ` · ${v.m('details.skipped', {
        phases: formatList(
          skipped.map((p) => phaseName(v, p)),
          v.language,
        ),
      })}`
    : '';
  return ['', `${chain}${tail}`];
}

function reviewSubject(v: Voice, phase: string): string {
  return phase === 'planning' || phase === 'execution'
    ? v.m(`review.subject.${phase}` as MessageKey)
    : tableCell(phase, 40);
}

function reviews(s: ProgressState, v: Voice): string[] {
  if (s.reviews.length === 0) return [];
  const rows = s.reviews.map((r) => {
    const verdict = `${VERDICT_EMOJI[r.result]} ${v.m(`review.verdict.${r.result}` as MessageKey)}`;
    const attempt =
      r.attempt > 1 && r.maxAttempts
        ? ` (${v.m('review.attempt', { attempt: r.attempt, max: r.maxAttempts })})`
        : '';
    const feedback = r.feedback ? tableCell(safeProse(r.feedback), 300) : '—';
    return `| ${reviewSubject(v, r.phase)} | ${verdict}${attempt} | ${feedback} |`;
  });
  const head = `| ${v.m('review.column.review')} | ${v.m('review.column.verdict')} | ${v.m('review.column.feedback')} |`;
  return ['', head, '| --- | --- | --- |', ...rows];
}

function usage(s: ProgressState, v: Voice): string[] {
  const groups = new Map<UsageGroup, { calls: number; tokens: number }>();
  for (const [role, u] of Object.entries(s.usage.byRole)) {
    const g = groups.get(usageGroup(role)) ?? { calls: 0, tokens: 0 };
    groups.set(usageGroup(role), {
      calls: g.calls + u.calls,
      tokens: g.tokens + u.promptTokens + u.completionTokens,
    });
  }
  if (groups.size === 0) return [];
  const order: UsageGroup[] = ['execution', 'planning', 'reviews', 'other'];
  const n = (x: number) => formatCount(x, v.language);
  const rows = order
    .filter((g) => groups.has(g))
    .map((g) => {
      const u = groups.get(g)!;
      return `| ${v.m(`usage.group.${g}` as MessageKey)} | ${n(u.calls)} | ${n(u.tokens)} |`;
    });
  const all = totals(s);
  const lines = [
    '',
    `| ${v.m('usage.column.group')} | ${v.m('usage.column.calls')} | ${v.m('usage.column.tokens')} |`,
    '| --- | ---: | ---: |',
    ...rows,
    `| **${v.m('usage.total')}** | ${n(all.calls)} | ${n(all.tokens)} |`,
  ];
  if (s.usage.costUsd !== undefined)
    lines.push('', v.m('usage.cost', { cost: formatCost(s.usage.costUsd, v.language) }));
  return lines;
}

function links(s: ProgressState, v: Voice): string[] {
  const parts: string[] = [];
  if (s.facts?.taskNoteUrl) parts.push(link(v.m('links.taskNote'), s.facts.taskNoteUrl));
  for (const l of s.links) parts.push(link(l.label, l.url));
  parts.push(v.m('links.startedAt', { time: formatDateTime(s.startedAt, v.language) }));
  return ['', parts.join(' · ')];
}

/** The `<summary>` text: what is folded, in numbers. */
export function detailsSummary(s: ProgressState, v: Voice): string {
  const parts = [v.m('details.summary')];
  const ran = phasesRan(s).length;
  if (ran > 0) parts.push(v.m('details.phases', { count: ran }));
  if (s.environment)
    parts.push(
      v.m('details.environment', { name: oneLine(s.environment.name, 40).replace(/[<>&]/g, '') }),
    );
  const all = totals(s);
  if (all.calls > 0) parts.push(v.m('details.calls', { count: all.calls }));
  if (all.tokens > 0) parts.push(v.m('details.tokens', { count: all.tokens }));
  return parts.join(' · ');
}

/** The whole `<details>` block; nothing while there is nothing to show (the first version). */
export function runDetails(s: ProgressState, v: Voice): string[] {
  const body = [
    ...phasesLine(s, v),
    ...renderPhaseFlowchart(s, v),
    ...reviews(s, v),
    ...usage(s, v),
    ...planHistory(s.plan, v),
    ...replanHistory(s, v),
  ];
  if (body.length === 0) return [];
  return [
    '',
    '<details>',
    `<summary>${detailsSummary(s, v)}</summary>`,
    ...body,
    ...links(s, v),
    '',
    '</details>',
  ];
}
