import { expect } from 'chai';
import { detectEnvironment } from '../../../src/phases/environment/detect-environment.ts';
import { DECISION_LAYOUTS, layoutMisses } from '../../fixtures/layouts/decision-layouts.ts';
import { tempRepo } from './support.ts';

/**
 * Decisions a maintainer would sign (SPEC O12): the test workflow outranks
 * helper workflows and binder, documented and CI-tested JDK floors outrank a
 * module's bytecode target, CI's conda file outranks binder's, and `versions`
 * holds one entry per fact. The layouts are written by hand; the detection
 * bench prints the score over the same list.
 */
describe('O12 decision layouts a maintainer would sign', () => {
  for (const layout of DECISION_LAYOUTS) {
    it(`O12 ${layout.name}`, async () => {
      const repo = tempRepo(layout.files);
      try {
        const detection = await detectEnvironment(repo.dir);
        expect(layoutMisses(layout, detection), detection.reasons.join('\n')).to.deep.equal([]);
      } finally {
        repo.cleanup();
      }
    });
  }
});
