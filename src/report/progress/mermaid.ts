/**
 * The phases as a Mermaid flowchart (GitLab renders ```mermaid blocks): one
 * node per phase in seed 000 §5.4 order, coloured by state, with the
 * reflection → execution loop drawn as a dotted edge.
 */
import type { PhaseName, PhaseState, ProgressState } from '../../core/progress.ts';
import { PHASE_DISPLAY_NAMES, PHASES } from '../../core/progress.ts';

export const PHASE_ICONS: Readonly<Record<PhaseState, string>> = {
  pending: '⚪',
  running: '🔄',
  done: '✅',
  failed: '❌',
  skipped: '⏭️',
};

const CLASS_STYLES: Readonly<Record<PhaseState, string>> = {
  pending: 'fill:#ffffff,stroke:#adb5bd,color:#495057',
  running: 'fill:#fff3bf,stroke:#f08c00,color:#5c3c00',
  done: 'fill:#d3f9d8,stroke:#2b8a3e,color:#1b4332',
  failed: 'fill:#ffe3e3,stroke:#c92a2a,color:#5c0011',
  skipped: 'fill:#f1f3f5,stroke:#adb5bd,color:#868e96,stroke-dasharray:4 3',
};

function node(phase: PhaseName, state: PhaseState): string {
  return `${phase}["${PHASE_ICONS[state]} ${PHASE_DISPLAY_NAMES[phase]}"]`;
}

/** The fenced ```mermaid block for the phases of `s`. */
export function renderPhaseFlowchart(s: ProgressState): string {
  const lines = ['```mermaid', 'flowchart LR'];
  for (const [i, phase] of PHASES.entries()) {
    const next = PHASES[i + 1];
    if (next) lines.push(`  ${node(phase, s.phases[phase].state)} --> ${next}`);
    else lines.push(`  ${node(phase, s.phases[phase].state)}`);
  }
  lines.push('  reflection -. revise .-> execution');
  const byState = new Map<PhaseState, PhaseName[]>();
  for (const phase of PHASES) {
    const state = s.phases[phase].state;
    byState.set(state, [...(byState.get(state) ?? []), phase]);
  }
  for (const [state, phases] of byState) {
    lines.push(`  classDef st_${state} ${CLASS_STYLES[state]}`);
    lines.push(`  class ${phases.join(',')} st_${state}`);
  }
  lines.push('```');
  return lines.join('\n');
}
