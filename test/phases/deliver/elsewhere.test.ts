/**
 * Issue 18 §2 (SPEC H3): no work is ever lost in delivery. When the change
 * cannot be pushed where it belongs — a protected branch, a push refused by
 * a hook, permission denied, a branch that moved on and does not rebase —
 * it goes to a new branch `mr-agent/<iid>-<job>` with a merge request into
 * the source branch, or, when that is refused too, into a patch note; and
 * `.mr-agent/patch.diff` is always kept. Real git against the stand-in's
 * repositories over smart HTTP, which refuses pushes as GitLab does.
 */
import { shellCheckout } from '../../../src/shell/checkout-port.ts';
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { execa } from 'execa';
import path from 'node:path';
import { GitLabNoteTarget } from '../../../src/gitlab/note-target.ts';
import type { Project } from '../../../src/core/gitlab-port.ts';
import { createMemoryLogger } from '../../../src/log/logger.ts';
import { Redactor } from '../../../src/log/redact.ts';
import { ExecaShell } from '../../../src/shell/execa-shell.ts';
import {
  deliver,
  type DeliveryInput,
  type DeliveryTarget,
} from '../../../src/phases/deliver/deliver.ts';
import { hasUnescapedQuickAction } from '../../../src/report/markdown.ts';
import { startWorld, type World } from '../../gitlab/world.ts';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
const tryGit = (cwd: string, ...args: string[]) => {
  try {
    return git(cwd, ...args);
  } catch {
    return undefined;
  }
};

describe('phases/deliver: the change always lands somewhere (issue 18 §2, H3)', () => {
  let w: World;
  let work: string;
  let project: Project;
  let redactor: Redactor;
  const SOURCE = 'feature/greeting';

  beforeEach(async () => {
    w = await startWorld({}, { gitHttp: true, pathEnv: process.env.PATH });
    project = await w.gitlab.getProject(w.s.project.id);
    work = await mkdtemp(path.join(tmpdir(), 'deliver-elsewhere-'));
    redactor = new Redactor();
  });
  afterEach(async () => {
    await w.close();
    await rm(work, { recursive: true, force: true });
  });

  function checkout(branch: string): string {
    const dir = path.join(work, `checkout-${Math.random().toString(36).slice(2, 8)}`);
    git(work, 'clone', '--quiet', '--branch', branch, `file://${w.s.project.repoDir}`, dir);
    return dir;
  }

  async function changed(): Promise<string> {
    const dir = checkout(SOURCE);
    await writeFile(path.join(dir, 'src/farewell.js'), 'export const farewell = (n) => n;\n');
    return dir;
  }

  async function input(repoDir: string, extra: Partial<DeliveryInput> = {}) {
    const target: DeliveryTarget = {
      kind: 'merge_request',
      mergeRequest: await w.gitlab.getMergeRequest(project.id, 1),
    };
    return {
      repoDir,
      shell: new ExecaShell(),
      checkout: shellCheckout,
      gitlab: w.gitlab,
      project,
      target,
      notes: new GitLabNoteTarget(w.gitlab, project.id, { type: 'merge_request', iid: 1 }),
      token: w.s.botToken.value,
      hostEnv: process.env,
      commit: {
        title: 'Add farewell()',
        body: 'Adds a farewell.\n/merge\n/approve',
        author: { name: 'mr-agent', email: 'mr-agent@example.invalid' },
      },
      branchPrefix: 'mr-agent/',
      marker: { job: '77', pipeline: '7', task: 't1' },
      redactor,
      logger: createMemoryLogger({ redactor }).logger,
      ...extra,
    } satisfies DeliveryInput;
  }

  const remoteHead = (ref: string) => tryGit(w.s.project.repoDir, 'rev-parse', '--verify', ref);

  it('issue 18 done-when: a protected source branch ends with the change on mr-agent/<iid>-<job> and a merge request into the source branch', async () => {
    w.standIn.model.protectBranch(w.s.project, SOURCE);
    const before = remoteHead(SOURCE);
    const dir = await changed();

    const result = await deliver(await input(dir));

    expect(result).to.deep.include({
      status: 'pushed-elsewhere',
      branch: 'mr-agent/1-77',
      intendedBranch: SOURCE,
    });
    if (result.status !== 'pushed-elsewhere') return;
    expect(result.reason).to.match(/`feature\/greeting` is protected/);
    expect(remoteHead(SOURCE), 'the source branch is untouched').to.equal(before);
    expect(remoteHead('mr-agent/1-77')).to.equal(result.commit);
    const mr = w.standIn.model.mergeRequests.find((m) => m.sourceBranch === 'mr-agent/1-77')!;
    expect(mr, 'a merge request').to.not.equal(undefined);
    expect(mr.targetBranch).to.equal(SOURCE);
    expect(result.mergeRequest).to.include({ iid: mr.iid, created: true });
    expect(mr.description).to.contain('!1').and.contain('protected');
    expect(hasUnescapedQuickAction(mr.description)).to.equal(false);
    expect(w.standIn.model.quickActions).to.deep.equal([]);
    expect(await readFile(path.join(dir, '.mr-agent/patch.diff'), 'utf8')).to.contain(
      '+export const farewell',
    );
  });

  it('issue 18 done-when: when the new branch is refused too, the change is posted as a patch note with git apply instructions', async () => {
    w.standIn.model.protectBranch(w.s.project, SOURCE);
    w.standIn.model.refusePushes(w.s.project, 'mr-agent/*', 'Branch name is not allowed here.');
    const dir = await changed();

    const result = await deliver(await input(dir));

    expect(result).to.include({ status: 'patch-posted', branch: SOURCE });
    if (result.status !== 'patch-posted') return;
    expect(result.reason).to.match(/protected/);
    expect(result.reason).to.contain('Branch name is not allowed here.');
    expect(remoteHead('mr-agent/1-77')).to.equal(undefined);
    const note = w.standIn.model.notes.find((n) => n.body.includes('mr-agent:patch'))!;
    expect(note.body).to.contain('```diff\ndiff --git a/src/farewell.js');
    expect(note.body).to.contain('git apply');
    expect(String(note.id)).to.equal(result.noteId);
    expect(await readFile(path.join(dir, '.mr-agent/patch.diff'), 'utf8')).to.contain('farewell');
  });

  it('H3 a push refused by a server hook on the source branch goes to mr-agent/<iid>-<job>; the hook’s words are the reason', async () => {
    w.standIn.model.refusePushes(w.s.project, SOURCE, 'Commit message does not follow the rules.');
    const dir = await changed();

    const result = await deliver(await input(dir));

    expect(result).to.include({ status: 'pushed-elsewhere', branch: 'mr-agent/1-77' });
    expect(result.status === 'pushed-elsewhere' && result.reason).to.contain(
      'Commit message does not follow the rules.',
    );
  });

  it('H3 permission denied for every push (a Reporter’s token): a patch note, the change kept in the artifacts', async () => {
    const reporter = w.standIn.model.addUser({ username: 'rep' });
    const token = w.standIn.model.addToken(reporter.id, { scopes: ['api'] });
    w.standIn.model.addMember(w.s.project, reporter.id, 20);
    const client = w.clientFor(token.value);
    const dir = await changed();

    const result = await deliver(
      await input(dir, {
        gitlab: client,
        token: token.value,
        notes: new GitLabNoteTarget(client, project.id, { type: 'merge_request', iid: 1 }),
      }),
    );

    expect(result.status).to.equal('patch-posted');
    expect(result.status === 'patch-posted' && result.reason).to.match(/refused the token/);
    expect(w.standIn.model.notes.filter((n) => n.authorId === reporter.id)).to.have.length(1);
  });

  it('H3 a branch that moved on and does not rebase: the change goes to mr-agent/<iid>-<job> with a merge request, not lost', async () => {
    const dir = await changed();
    await writeFile(path.join(dir, 'README.md'), 'agent\n');
    await w.standIn.model.commit(w.s.project, SOURCE, { 'README.md': 'human\n' });

    const result = await deliver(await input(dir));

    expect(result).to.include({ status: 'pushed-elsewhere', branch: 'mr-agent/1-77' });
    expect(result.status === 'pushed-elsewhere' && result.reason).to.contain(
      'does not rebase cleanly',
    );
    expect(git(w.s.project.repoDir, 'show', 'mr-agent/1-77:README.md')).to.equal('agent');
  });

  it('H3 the pushes of a second run of the same job reuse its branch and merge request', async () => {
    w.standIn.model.protectBranch(w.s.project, SOURCE);
    const first = await deliver(await input(await changed()));
    const again = checkout(SOURCE);
    await writeFile(path.join(again, 'src/other.js'), 'export const other = 2;\n');
    const second = await deliver(await input(again));

    expect(second.status).to.equal('pushed-elsewhere');
    const mrs = w.standIn.model.mergeRequests.filter((m) => m.sourceBranch === 'mr-agent/1-77');
    expect(mrs).to.have.length(1);
    expect(second.status === 'pushed-elsewhere' && second.mergeRequest).to.deep.include({
      iid: first.status === 'pushed-elsewhere' ? first.mergeRequest!.iid : -1,
      created: false,
    });
  });

  it('H0 a push that landed although git saw the connection drop is found with ls-remote, not pushed again', async () => {
    w.standIn.faults.add({
      git: true,
      method: 'POST',
      path: /git-receive-pack$/,
      afterHandling: true,
    });
    const before = remoteHead(SOURCE);
    const dir = await changed();

    const result = await deliver(await input(dir));

    // git itself may send the push again and be told the ref moved: that is our own push
    expect(result).to.include({ status: 'pushed', branch: SOURCE, rebased: false });
    expect(remoteHead(SOURCE)).to.equal(result.status === 'pushed' ? result.commit : '');
    expect(remoteHead(`${SOURCE}^`), 'one commit on top').to.equal(before);
    const dropped = w.standIn.requests.entries.filter((e) => e.route === 'git' && e.status === 0);
    expect(dropped, 'the fault was hit').to.have.length(1);
  });

  it('H0 a push answered 502 before anything happened is sent again and lands once', async () => {
    w.standIn.faults.add({ git: true, method: 'POST', path: /git-receive-pack$/, status: 502 });
    const dir = await changed();

    const result = await deliver(await input(dir));

    expect(result).to.include({ status: 'pushed', branch: SOURCE });
    expect(remoteHead(SOURCE)).to.equal(result.status === 'pushed' ? result.commit : '');
  });
});

describe('testkit/gitlab-server: pushes refused as GitLab refuses them (issue 18 §2)', () => {
  let w: World;
  let work: string;
  beforeEach(async () => {
    w = await startWorld({}, { gitHttp: true, pathEnv: process.env.PATH });
    work = await mkdtemp(path.join(tmpdir(), 'standin-push-'));
  });
  afterEach(async () => {
    await w.close();
    await rm(work, { recursive: true, force: true });
  });

  it('a Developer pushing to a branch protected for Maintainers gets GitLab’s pre-receive refusal; a Maintainer may push', async () => {
    w.standIn.model.protectBranch(w.s.project, 'feature/*');
    const url = new URL(`${w.standIn.url}/acme/app.git`);
    // git runs as a child while the stand-in answers in this process: never execFileSync here
    const push = async (token: string) => {
      const dir = path.join(work, Math.random().toString(36).slice(2));
      git(work, 'clone', '-q', '-b', 'feature/greeting', `file://${w.s.project.repoDir}`, dir);
      git(dir, '-c', 'user.name=t', '-c', 'user.email=t@x', 'commit', '--allow-empty', '-qm', 'x');
      const auth = Buffer.from(`any:${token}`).toString('base64');
      const header = `http.extraHeader=Authorization: Basic ${auth}`;
      const result = await execa(
        'git',
        ['-c', header, 'push', url.toString(), 'HEAD:feature/greeting'],
        { cwd: dir, reject: false },
      );
      return result.exitCode === 0 ? 'pushed' : result.stderr;
    };
    const refused = await push(w.s.developerToken.value);
    expect(refused).to.contain(
      'remote: GitLab: You are not allowed to push code to protected branches on this project.',
    );
    expect(refused).to.contain('(pre-receive hook declined)');
    expect(await push(w.s.botToken.value)).to.equal('pushed');
  });
});
