import { expect } from 'chai';
import { forkCodeNotRun } from '../../src/ci/fork-code.ts';
import type { PreparedRun } from '../../src/ci/prepare.ts';
import { loadConfig } from '../../src/config/load.ts';

type Facts = Pick<PreparedRun, 'config' | 'mergeRequest' | 'env' | 'context'>;

async function facts(input: {
  forks?: 'patch' | 'run';
  isFork: boolean;
  protectedRef?: string;
  ref?: string;
}): Promise<Facts> {
  const sets = input.forks ? [`trigger.forks=${input.forks}`] : [];
  const { config } = await loadConfig({ env: {}, file: null, sets });
  return {
    config,
    mergeRequest: { iid: 4, isFork: input.isFork } as PreparedRun['mergeRequest'],
    env: input.protectedRef === undefined ? {} : { CI_COMMIT_REF_PROTECTED: input.protectedRef },
    context: { ref: input.ref ?? 'main' } as PreparedRun['context'],
  };
}

describe('ci/fork-code: may a fork merge request run its code (issue 19 §1)', () => {
  it('issue 19 §1 a merge request from the project itself runs as always', async () => {
    expect(forkCodeNotRun(await facts({ isFork: false, protectedRef: 'true' }))).to.equal(
      undefined,
    );
  });

  it('issue 19 §1 a fork runs nothing by default (`patch`), and the reason names the opt-in', async () => {
    const notRun = forkCodeNotRun(await facts({ isFork: true, protectedRef: 'false' }));
    expect(notRun?.reason)
      .to.contain("the fork's code was not run")
      .and.contain('trigger.forks: run');
  });

  it('issue 19 §1 `run` runs a fork only on an unprotected ref; a protected or unknown one runs nothing', async () => {
    const mrRef = 'refs/merge-requests/4/head';
    expect(
      forkCodeNotRun(
        await facts({ forks: 'run', isFork: true, protectedRef: 'false', ref: mrRef }),
      ),
    ).to.equal(undefined);
    const onMain = forkCodeNotRun(
      await facts({ forks: 'run', isFork: true, protectedRef: 'true' }),
    );
    expect(onMain?.reason).to.contain('the protected ref `main`');
    const unknown = forkCodeNotRun(await facts({ forks: 'run', isFork: true }));
    expect(unknown?.reason).to.contain("the fork's code was not run");
  });
});
