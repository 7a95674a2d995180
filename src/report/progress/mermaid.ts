/**
 * The phases as a Mermaid flowchart (GitLab renders ```mermaid blocks), only
 * where it shows what a list cannot: loops. It is drawn when execution or
 * reflection ran more than once, or the plan was revised; then it holds only
 * the phases that ran, top-down so it stays legible in an 800 px note, with
 * the revise loop drawn as a dotted edge carrying its count.
 */
import type { PhaseName, PhaseState, ProgressState } from '../../core/progress/model.ts';
import { PHASES } from '../../core/progress/model.ts';
import { EMOJI } from '../vocabulary.ts';
import { phaseName, type Voice } from './headline.ts';

export const PHASE_ICONS: Readonly<Record<PhaseState, string>> = {
  pending: '⚪',
  running: EMOJI.running,
  done: EMOJI.done,
  failed: EMOJI.failed,
  skipped: EMOJI.skipped,
};

const CLASS_STYLES: Readonly<Record<PhaseState, string>> = {
  pending: 'fill:#ffffff,stroke:#adb5bd,color:#495057',
  running: 'fill:#fff3bf,stroke:#f08c00,color:#5c3c00',
  done: 'fill:#d3f9d8,stroke:#2b8a3e,color:#1b4332',
  failed: 'fill:#ffe3e3,stroke:#c92a2a,color:#5c0011',
  skipped: 'fill:#f1f3f5,stroke:#adb5bd,color:#868e96,stroke-dasharray:4 3',
};

/** Tighter spacing than Mermaid's default, so the top-down chart stays short. */
const COMPACT = '%%{init: {"flowchart": {"nodeSpacing": 24, "rankSpacing": 24}}}%%';

/** How often the run went back from reflection to execution (the loop the diagram draws). */
function loopCount(s: ProgressState): number {
  return Math.max(0, (s.phases.execution.runs ?? 0) - 1, s.plan?.current.revision ?? 0);
}

/**
 * Whether there is a loop to show: execution ran again after reflection.
 * Only then is a diagram drawn; a step retried without reflection is told
 * by its checklist item ("failed 3×, then done").
 */
export function hasLoops(s: ProgressState): boolean {
  return (
    loopCount(s) > 0 && (s.phases.reflection.runs ?? 0) > 0 && (s.phases.execution.runs ?? 0) > 0
  );
}

function ran(s: ProgressState): PhaseName[] {
  return PHASES.filter((p) => p !== 'complete' && (s.phases[p].runs ?? 0) > 0);
}

/** The fenced ```mermaid block, or nothing when the run did not loop. */
export function renderPhaseFlowchart(s: ProgressState, v: Voice): string[] {
  const phases = ran(s);
  if (!hasLoops(s) || phases.length === 0) return [];
  const lines = ['```mermaid', COMPACT, 'flowchart TD'];
  for (const [i, phase] of phases.entries()) {
    const p = s.phases[phase];
    const repeats = (p.runs ?? 0) > 1 ? ` ×${p.runs}` : '';
    lines.push(`  ${phase}["${PHASE_ICONS[p.state]} ${phaseName(v, phase)}${repeats}"]`);
    const next = phases[i + 1];
    if (next) lines.push(`  ${phase} --> ${next}`);
  }
  const loops = loopCount(s);
  if (phases.includes('execution') && phases.includes('reflection'))
    lines.push(`  reflection -. "${v.m('diagram.revise')} ×${loops}" .-> execution`);
  const byState = new Map<PhaseState, PhaseName[]>();
  for (const phase of phases) {
    const state = s.phases[phase].state;
    byState.set(state, [...(byState.get(state) ?? []), phase]);
  }
  for (const [state, names] of byState) {
    lines.push(`  classDef st_${state} ${CLASS_STYLES[state]}`);
    lines.push(`  class ${names.join(',')} st_${state}`);
  }
  lines.push('```');
  return ['', ...lines];
}
