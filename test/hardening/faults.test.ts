import { recordFigures } from './support/figures.ts';
import { FaultMatrix } from './faults/matrix.ts';
import { diskCell, STATE_FILES } from './faults/disk-cells.ts';
import { SIGTERM_PHASES, sigtermCell } from './faults/sigterm-cells.ts';
import {
  applies,
  diskRunCell,
  GITLAB_RUN_FAULTS,
  gitlabRunCell,
  LLM_FAULTS,
  llmCell,
  PHASES,
  PUSH_CASES,
  pushCell,
  transientLlmCell,
} from './faults/run-cells.ts';
import { GITLAB_FAULTS, NOTE_MOMENTS, noteCell } from './faults/note-cells.ts';

/**
 * The fault matrix (issue 12 §3, SPEC H0, H1, I3, K1, M6): each fault where it
 * can hit; every cell checks that the final note state is right and that the
 * history survives. Printed as a matrix when the suite ends.
 */
describe('hardening: fault matrix (SPEC H0 H1 I3 K1 M6)', function () {
  this.timeout(60_000);
  const matrix = new FaultMatrix();

  after(() =>
    recordFigures('fault matrix', [`${matrix.size} cells, all passing`, ...matrix.render()]),
  );

  for (const fault of GITLAB_FAULTS) {
    for (const moment of NOTE_MOMENTS) {
      it(`H0 H1 ${fault.name} on the progress note ${moment}: the final state is written`, async () => {
        matrix.set(fault.name, `progress note (${moment})`, await noteCell(fault, moment));
      });
    }
  }

  for (const state of STATE_FILES) {
    it(`I3 disk full while writing ${state.name}: a clear error, the earlier file intact`, async () => {
      matrix.set('disk full (ENOSPC)', `state file: ${state.name}`, await diskCell(state));
    });
  }

  for (const fault of LLM_FAULTS) {
    for (const phase of PHASES) {
      if (!applies(phase, fault)) continue;
      it(`K1 ${fault.name} in ${phase} for good: the run fails with its final state in the note`, async () => {
        matrix.set(fault.name, `run: ${phase}`, await llmCell(phase, fault));
      });
    }
    it(`K1 ${fault.name} once in execution: the run recovers and completes`, async () => {
      matrix.set(fault.name, 'run: once, then fine', await transientLlmCell(fault));
    });
  }

  for (const fault of GITLAB_RUN_FAULTS) {
    it(`H0 ${fault.name} on the run's note writes: the run completes, the note ends "complete"`, async () => {
      matrix.set(fault.name, 'run: note writes', await gitlabRunCell(fault));
    });
  }

  for (const fraction of [0.25, 0.75, 0.95]) {
    const share = `${Math.round(fraction * 100)} %`;
    it(`I3 disk full after ${share} of a run's state writes: a final state in the note, no half-written file`, async () => {
      matrix.set(
        `disk full (after ${share} of the writes)`,
        'run: state files',
        await diskRunCell(fraction),
      );
    });
  }

  for (const phase of SIGTERM_PHASES) {
    it(`M6 SIGTERM during ${phase} (child process): final state "cancelled" everywhere, exit 143`, async () => {
      matrix.set('SIGTERM', `run: ${phase}`, await sigtermCell(phase));
    });
  }

  for (const kind of PUSH_CASES) {
    it(`H3 push rejected (${kind}): delivery says why and the change is not lost`, async () => {
      matrix.set(`push rejected (${kind})`, 'delivery', await pushCell(kind));
    });
  }
});
