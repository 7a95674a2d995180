import { expect } from 'chai';
import { shellCheckout } from '../../../src/shell/checkout-port.ts';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { GitLabNoteTarget } from '../../../src/gitlab/note-target.ts';
import { createSilentLogger } from '../../../src/log/logger.ts';
import { Redactor } from '../../../src/log/redact.ts';
import {
  commitTitle,
  createDeliveryStep,
  deliveryReport,
} from '../../../src/phases/deliver/step.ts';
import { startWorld, type World } from '../../gitlab/world.ts';
import { ExecaShell } from '../../../src/shell/execa-shell.ts';

describe('phases/deliver/step: delivery as the run sees it (H3)', () => {
  it('commitTitle: the first line, without a final period, at most 72 characters', () => {
    expect(commitTitle('Fix the parser.\nmore')).to.equal('Fix the parser');
    const long = commitTitle(`Make ${'very '.repeat(20)}long`);
    expect(long).to.have.length(72);
    expect(long.endsWith('…')).to.equal(true);
  });

  it('deliveryReport: a pushed commit gets its page; the other outcomes say why nothing was pushed', () => {
    const url = (sha: string) => `https://gitlab.test/g/p/-/commit/${sha}`;
    expect(
      deliveryReport(
        { status: 'pushed', branch: 'f', commit: 'abc', rebased: false, mergeRequest: undefined },
        url,
      ),
    ).to.deep.equal({
      status: 'pushed',
      branch: 'f',
      commit: 'abc',
      commitUrl: 'https://gitlab.test/g/p/-/commit/abc',
    });
    expect(deliveryReport({ status: 'no-changes' }, url)).to.deep.equal({ status: 'no-changes' });
    expect(
      deliveryReport(
        {
          status: 'patch-posted',
          branch: 'f',
          noteId: '9',
          reason: 'a fork',
          commit: 'abc',
          patchPath: '.mr-agent/patch.diff',
        },
        url,
      ),
    ).to.deep.equal({
      status: 'patch-posted',
      branch: 'f',
      commit: 'abc',
      notPushedReason: 'a fork',
      patchPath: '.mr-agent/patch.diff',
    });
  });

  it('issue 18 deliveryReport: a change delivered elsewhere says where it is, where it belongs and why', () => {
    const url = (sha: string) => `https://gitlab.test/g/p/-/commit/${sha}`;
    expect(
      deliveryReport(
        {
          status: 'pushed-elsewhere',
          branch: 'mr-agent/3-77',
          intendedBranch: 'fix-sum',
          reason: '`fix-sum` is protected in g/p',
          commit: 'abc',
          mergeRequest: {
            iid: 4,
            webUrl: 'https://gitlab.test/g/p/-/merge_requests/4',
            created: true,
          },
          patchPath: '.mr-agent/patch.diff',
        },
        url,
      ),
    ).to.deep.equal({
      status: 'pushed-elsewhere',
      branch: 'mr-agent/3-77',
      commit: 'abc',
      commitUrl: 'https://gitlab.test/g/p/-/commit/abc',
      mergeRequestUrl: 'https://gitlab.test/g/p/-/merge_requests/4',
      intendedBranch: 'fix-sum',
      notPushedReason: '`fix-sum` is protected in g/p',
      patchPath: '.mr-agent/patch.diff',
    });
  });

  describe('against the stand-in', () => {
    let w: World;
    let work: string;
    beforeEach(async () => {
      w = await startWorld();
      work = await mkdtemp(path.join(tmpdir(), 'deliver-step-'));
    });
    afterEach(async () => {
      await w.close();
      await rm(work, { recursive: true, force: true });
    });

    /** A checkout of the MR branch and a delivery step for it (the footer when given). */
    async function checkoutWithStep(footer?: string) {
      const dir = path.join(work, 'checkout');
      await execa('git', [
        'clone',
        '--quiet',
        '--branch',
        'feature/greeting',
        `file://${w.s.project.repoDir}`,
        dir,
      ]);
      const project = await w.gitlab.getProject(w.s.project.id);
      const step = createDeliveryStep({
        shell: new ExecaShell(),
        checkout: shellCheckout,
        repoDir: dir,
        gitlab: w.gitlab,
        project,
        target: {
          kind: 'merge_request',
          mergeRequest: await w.gitlab.getMergeRequest(project.id, 1),
        },
        notes: new GitLabNoteTarget(w.gitlab, project.id, { type: 'merge_request', iid: 1 }),
        token: w.s.botToken.value,
        hostEnv: process.env,
        author: { name: 'mr-agent', email: 'bot@example.invalid' },
        branchPrefix: 'mr-agent/',
        redactor: new Redactor(),
        logger: createSilentLogger(),
        ...(footer ? { footer } : {}),
      });
      return { dir, project, step };
    }

    it('commits with the objective as title, the summary, the files and the footer, and pushes to the MR branch', async () => {
      const remote = w.s.project.repoDir;
      const { dir, project, step } = await checkoutWithStep('Requested in !1: shorter greeting');
      await writeFile(path.join(dir, 'src/greet.js'), 'export const greet = (n) => `Hi ${n}`;\n');
      const report = await step.deliver({
        objective: 'Make greet() shorter.',
        summary: 'greet() says Hi now.',
        changedFiles: ['src/greet.js'],
      });
      expect(report).to.include({ status: 'pushed', branch: 'feature/greeting' });
      expect(report.commitUrl).to.equal(`${project.webUrl}/-/commit/${report.commit}`);
      const message = await execa('git', ['log', '-1', '--format=%B', 'feature/greeting'], {
        cwd: remote,
      });
      expect(message.stdout.trim()).to.equal(
        'Make greet() shorter\n\ngreet() says Hi now.\n\nFiles changed: src/greet.js\n\nRequested in !1: shorter greeting',
      );
    });

    it('M1 refuses to push when the run wrote into .git after the step was made (a planted hook)', async () => {
      const { dir, step } = await checkoutWithStep();
      // ... the run's tools work ...
      await new Promise((resolve) => setTimeout(resolve, 50));
      await writeFile(path.join(dir, 'src/greet.js'), 'export const greet = 1;\n');
      await writeFile(path.join(dir, '.git/hooks/pre-push'), '#!/bin/sh\nexit 0\n', {
        mode: 0o755,
      });
      const before = (
        await execa('git', ['rev-parse', 'feature/greeting'], { cwd: w.s.project.repoDir })
      ).stdout;

      const error = await step
        .deliver({ objective: 'x', summary: 'y', changedFiles: ['src/greet.js'] })
        .catch((e: unknown) => e);

      expect((error as Error).message).to.contain('added .git/hooks/pre-push');
      const after = (
        await execa('git', ['rev-parse', 'feature/greeting'], { cwd: w.s.project.repoDir })
      ).stdout;
      expect(after).to.equal(before);
    });
  });
});
