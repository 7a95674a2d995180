import { execFileSync } from 'node:child_process';
import { shellCheckout } from '../../../src/shell/checkout-port.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Project } from '../../../src/core/gitlab-port.ts';
import { GitLabNoteTarget } from '../../../src/gitlab/note-target.ts';
import { createMemoryLogger } from '../../../src/log/logger.ts';
import { Redactor } from '../../../src/log/redact.ts';
import type { DeliveryInput, DeliveryTarget } from '../../../src/phases/deliver/deliver.ts';
import { startWorld, type World } from '../../gitlab/world.ts';
import { ExecaShell } from '../../../src/shell/execa-shell.ts';

export const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/** The stand-in with its repositories over HTTP, a work folder, and delivery inputs for checkouts of it. */
export interface DeliveryWorld {
  w: World;
  project: Project;
  redactor: Redactor;
  /** A clone of the project at `branch` (the CI checkout). */
  checkout(branch: string): string;
  input(
    repoDir: string,
    target: DeliveryTarget,
    commit?: Partial<DeliveryInput['commit']>,
  ): DeliveryInput;
  mrTarget(iid?: number): Promise<DeliveryTarget>;
  close(): Promise<void>;
}

export async function startDeliveryWorld(): Promise<DeliveryWorld> {
  const w = await startWorld({}, { gitHttp: true, pathEnv: process.env.PATH });
  const project = await w.gitlab.getProject(w.s.project.id);
  const work = await mkdtemp(path.join(tmpdir(), 'delivery-world-'));
  const redactor = new Redactor();
  return {
    w,
    project,
    redactor,
    checkout(branch) {
      const dir = path.join(work, `checkout-${Math.random().toString(36).slice(2, 8)}`);
      git(work, 'clone', '--quiet', '--branch', branch, `file://${w.s.project.repoDir}`, dir);
      return dir;
    },
    input(repoDir, target, commit = {}) {
      const { logger } = createMemoryLogger({ redactor, level: 'debug', format: 'json' });
      return {
        repoDir,
        gitlab: w.gitlab,
        project,
        target,
        notes: new GitLabNoteTarget(w.gitlab, project.id, { type: 'merge_request', iid: 1 }),
        token: w.s.botToken.value,
        hostEnv: process.env,
        shell: new ExecaShell(),
        checkout: shellCheckout,
        commit: {
          title: 'Add notes',
          body: 'Adds a note.',
          author: { name: 'mr-agent', email: 'mr-agent@example.invalid' },
          ...commit,
        },
        branchPrefix: 'mr-agent/',
        marker: { job: '77', pipeline: '7', task: 't1' },
        redactor,
        logger,
      };
    },
    mrTarget: async (iid = 1) => ({
      kind: 'merge_request',
      mergeRequest: await w.gitlab.getMergeRequest(project.id, iid),
    }),
    async close() {
      await w.close();
      await rm(work, { recursive: true, force: true });
    },
  };
}
