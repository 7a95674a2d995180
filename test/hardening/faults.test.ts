import { recordFigures } from './support/figures.ts';
import { FaultMatrix } from './faults/matrix.ts';
import { diskCell, STATE_FILES } from './faults/disk-cells.ts';
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
});
