import { expect } from 'chai';
import { shellCheckout } from '../../../src/shell/checkout-port.ts';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ModelBehaviorError } from '../../../src/errors/errors.ts';
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
import { snapshotGitControl } from '../../../src/phases/deliver/git-guard.ts';
import { renderPatchNote } from '../../../src/phases/deliver/patch-note.ts';
import { hasUnescapedQuickAction } from '../../../src/report/markdown.ts';
import { startWorld, type World } from '../../gitlab/world.ts';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

describe('phases/deliver (H3, real git against the stand-in’s repositories over HTTP)', () => {
  let w: World;
  let work: string;
  let project: Project;
  let logLines: string[];
  let redactor: Redactor;

  beforeEach(async () => {
    w = await startWorld({}, { gitHttp: true, pathEnv: process.env.PATH });
    project = await w.gitlab.getProject(w.s.project.id);
    work = await mkdtemp(path.join(tmpdir(), 'deliver-'));
    redactor = new Redactor();
  });
  afterEach(async () => {
    await w.close();
    await rm(work, { recursive: true, force: true });
  });

  /** The CI checkout: a clone of the project at `branch`. */
  function checkout(branch: string, from = w.s.project.repoDir): string {
    const dir = path.join(work, `checkout-${Math.random().toString(36).slice(2, 8)}`);
    git(work, 'clone', '--quiet', '--branch', branch, `file://${from}`, dir);
    return dir;
  }

  function input(
    repoDir: string,
    target: DeliveryTarget,
    extra: Partial<DeliveryInput> = {},
  ): DeliveryInput {
    const memory = createMemoryLogger({ redactor, level: 'debug', format: 'json' });
    logLines = memory.lines;
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
        body: 'Adds a farewell next to greet.',
        author: { name: 'mr-agent', email: 'mr-agent@example.invalid' },
      },
      branchPrefix: 'mr-agent/',
      marker: { job: '77', pipeline: '7', task: 't1' },
      redactor,
      logger: memory.logger,
      ...extra,
    };
  }

  const mrTarget = async (iid = 1): Promise<DeliveryTarget> => ({
    kind: 'merge_request',
    mergeRequest: await w.gitlab.getMergeRequest(project.id, iid),
  });

  it('H3 commits with a clear message and pushes to the MR source branch; the token is never logged nor left in .git/config', async () => {
    const dir = checkout('feature/greeting');
    await writeFile(
      path.join(dir, 'src/farewell.js'),
      'export const farewell = (n) => `Bye ${n}`;\n',
    );
    await writeFile(path.join(dir, '.mr-agent-note.txt'), 'x');
    await writeFile(path.join(dir, 'keep.txt'), 'kept\n');
    execFileSync('mkdir', ['-p', path.join(dir, '.mr-agent')]);
    await writeFile(path.join(dir, '.mr-agent', 'result.json'), '{}');

    const result = await deliver(input(dir, await mrTarget()));

    expect(result).to.include({ status: 'pushed', branch: 'feature/greeting', rebased: false });
    const remoteHead = git(w.s.project.repoDir, 'rev-parse', 'refs/heads/feature/greeting');
    expect(result.status === 'pushed' && result.commit).to.equal(remoteHead);
    expect(git(w.s.project.repoDir, 'log', '-1', '--format=%s%n%n%b%an', remoteHead)).to.equal(
      'Add farewell()\n\nAdds a farewell next to greet.\nmr-agent',
    );
    const files = git(w.s.project.repoDir, 'show', '--name-only', '--format=', remoteHead).split(
      '\n',
    );
    expect(files).to.include('src/farewell.js').and.not.include('.mr-agent/result.json');
    const token = w.s.botToken.value;
    expect(await readFile(path.join(dir, '.git/config'), 'utf8')).not.to.contain(token);
    expect(logLines.join('\n')).not.to.contain(token);
    expect(logLines.join('\n')).to.contain('git finished');
    expect(w.standIn.requests.entries.some((e) => e.route === 'git' && e.status === 200)).to.equal(
      true,
    );
  });

  it('M1 M5 hooks and filters a command planted in .git never see the push token', async () => {
    const dir = checkout('feature/greeting');
    const dump = path.join(work, 'dumped');
    const hook = `#!/bin/sh\necho HOOK RAN >> ${dump}\nenv >> ${dump}\n`;
    await writeFile(path.join(dir, '.git/hooks/pre-push'), hook, { mode: 0o755 });
    await writeFile(path.join(dir, '.git/hooks/post-commit'), hook, { mode: 0o755 });
    await writeFile(path.join(dir, 'spy.sh'), `#!/bin/sh\nenv >> ${dump}\ncat\n`, {
      mode: 0o755,
    });
    git(dir, 'config', 'filter.spy.clean', path.join(dir, 'spy.sh'));
    await writeFile(path.join(dir, '.gitattributes'), '*.js filter=spy\n');
    await writeFile(path.join(dir, 'src/farewell.js'), 'export const farewell = 1;\n');

    const result = await deliver(input(dir, await mrTarget()));

    expect(result.status).to.equal('pushed');
    // the filter ran (it is ordinary git), but with no token in its environment; hooks never ran
    const seen = await readFile(dump, 'utf8');
    const token = w.s.botToken.value;
    expect(seen).to.contain('PATH=');
    expect(seen).not.to.contain(token);
    expect(seen).not.to.contain(Buffer.from(`oauth2:${token}`).toString('base64'));
    expect(seen).not.to.contain('GIT_CONFIG_VALUE_0');
    expect(seen).not.to.contain('HOOK RAN');
  });

  it('M1 with a snapshot taken before the run, a changed .git stops the delivery', async () => {
    const dir = checkout('feature/greeting');
    const before = await snapshotGitControl(dir);
    await writeFile(path.join(dir, 'src/farewell.js'), 'export const farewell = 1;\n');
    await writeFile(path.join(dir, '.git/hooks/pre-push'), '#!/bin/sh\nexit 0\n', {
      mode: 0o755,
    });
    git(dir, 'config', 'url.ext::sh -c evil.insteadOf', 'http://');

    const error = await deliver(input(dir, await mrTarget(), { gitControl: before })).catch(
      (e: unknown) => e,
    );

    expect(error).to.be.instanceOf(ModelBehaviorError);
    expect((error as Error).message).to.equal(
      "the run changed the repository's git control files (added .git/hooks/pre-push); the change is not delivered",
    );
    expect(git(w.s.project.repoDir, 'rev-parse', 'refs/heads/feature/greeting')).to.equal(
      git(dir, 'rev-parse', 'HEAD'),
    );
  });

  it('H3 a wrong token is refused by the server: the change becomes a patch note, and the token is never shown', async () => {
    const dir = checkout('feature/greeting');
    await writeFile(path.join(dir, 'x.txt'), 'x\n');
    const result = await deliver(input(dir, await mrTarget(), { token: 'glpat-not-a-real-token' }));
    expect(result.status).to.equal('patch-posted');
    const reason = result.status === 'patch-posted' ? result.reason : '';
    expect(reason).to.contain(
      'the push was refused (feature/greeting): GitLab refused the token for git (it needs the `api` or `write_repository` scope and a Developer role)',
    );
    expect(JSON.stringify(result) + logLines.join('\n')).not.to.contain('glpat-not-a-real-token');
  });

  it('H3 never pushes to the default branch nor to a protected one: the change goes to mr-agent/<iid>-<job> instead (issue 18)', async () => {
    const onMain = w.standIn.model.createMergeRequest({
      project: w.s.project,
      sourceBranch: 'main',
      targetBranch: 'release/1',
      title: 'x',
      authorId: w.s.developer.id,
    });
    const dir = checkout('main');
    await writeFile(path.join(dir, 'x.txt'), 'x\n');
    const result = await deliver(input(dir, await mrTarget(onMain.iid)));
    expect(result).to.deep.include({
      status: 'pushed-elsewhere',
      branch: `mr-agent/${onMain.iid}-77`,
      intendedBranch: 'main',
      reason: '`main` is the default branch of acme/app',
    });

    await w.standIn.model.commit(w.s.project, 'release/2.0', { 'r.txt': 'r\n' }, { from: 'main' });
    w.standIn.model.protectBranch(w.s.project, 'release/*');
    const onRelease = w.standIn.model.createMergeRequest({
      project: w.s.project,
      sourceBranch: 'release/2.0',
      title: 'y',
      authorId: w.s.developer.id,
    });
    const release = checkout('release/2.0');
    await writeFile(path.join(release, 'y.txt'), 'y\n');
    const elsewhere = await deliver(input(release, await mrTarget(onRelease.iid)));
    expect(elsewhere).to.deep.include({
      status: 'pushed-elsewhere',
      intendedBranch: 'release/2.0',
      reason: '`release/2.0` is protected in acme/app (rule `release/*`)',
    });
    expect(git(w.s.project.repoDir, 'log', '-1', '--format=%s', 'main')).to.equal('seed');
    expect(git(w.s.project.repoDir, 'log', '-1', '--format=%s', 'release/2.0')).to.equal('seed');
  });

  it('H3 from an issue: pushes a new branch and opens a draft MR that closes the issue; a second run reuses it after one rebase', async () => {
    const issue = await w.gitlab.getIssue(project.id, 1);
    const dir = checkout('main');
    await writeFile(path.join(dir, 'src/farewell.js'), 'export const farewell = 1;\n');
    const first = await deliver(input(dir, { kind: 'issue', issue }));

    expect(first).to.deep.include({
      status: 'pushed',
      branch: 'mr-agent/1-add-a-farewell-function',
      rebased: false,
    });
    const mr = first.status === 'pushed' ? first.mergeRequest : undefined;
    expect(mr).to.include({ created: true });
    const opened = await w.gitlab.getMergeRequest(project.id, mr!.iid);
    expect(opened).to.include({
      draft: true,
      title: 'Draft: Resolve "Add a farewell function"',
      targetBranch: 'main',
    });
    expect(opened.description).to.match(/^Closes #1\n/);
    expect(
      git(w.s.project.repoDir, 'log', '-1', '--format=%B', 'mr-agent/1-add-a-farewell-function'),
    ).to.contain('Closes #1');

    const again = checkout('main');
    await writeFile(path.join(again, 'src/other.js'), 'export const other = 2;\n');
    const second = await deliver(input(again, { kind: 'issue', issue }));
    expect(second).to.deep.include({ status: 'pushed', rebased: true });
    expect(second.status === 'pushed' && second.mergeRequest).to.deep.equal({
      ...mr,
      created: false,
    });
    const tree = git(
      w.s.project.repoDir,
      'ls-tree',
      '-r',
      '--name-only',
      'mr-agent/1-add-a-farewell-function',
    );
    expect(tree.split('\n')).to.include.members(['src/farewell.js', 'src/other.js']);
  });

  it('H3 a push rejected as non-fast-forward is rebased once; a conflicting one goes to its own branch', async () => {
    const dir = checkout('feature/greeting');
    await w.standIn.model.commit(w.s.project, 'feature/greeting', {
      'README.md': '# app\n\nChanged by a human.\n',
    });
    await writeFile(path.join(dir, 'NOTES.md'), 'agent\n');
    expect(await deliver(input(dir, await mrTarget()))).to.include({
      status: 'pushed',
      rebased: true,
    });

    const conflict = checkout('feature/greeting');
    await w.standIn.model.commit(w.s.project, 'feature/greeting', { 'NOTES.md': 'human\n' });
    await writeFile(path.join(conflict, 'NOTES.md'), 'agent again\n');
    const elsewhere = await deliver(input(conflict, await mrTarget()));
    expect(elsewhere.status).to.equal('pushed-elsewhere');
    expect(elsewhere.status === 'pushed-elsewhere' && elsewhere.reason).to.contain(
      'does not rebase cleanly',
    );
    // the rebase was undone; only the state folder (the kept patch) is new
    expect(git(conflict, 'status', '--porcelain')).to.equal('?? .mr-agent/');
  });

  it('H3 a fork MR that cannot be pushed gets the diff as an escaped patch note', async () => {
    const fork = await w.standIn.model.addProject({ path: 'dev/app', forkOf: w.s.project });
    await w.standIn.model.commit(fork, 'fix', { 'NEW.md': 'new\n' }, { from: 'main' });
    const rec = w.standIn.model.createMergeRequest({
      project: w.s.project,
      sourceProject: fork,
      sourceBranch: 'fix',
      title: 'Fork fix',
      authorId: w.s.developer.id,
    });
    // a secret in the change never gets this far: secret-scan.test.ts (issue 19 §1)
    const dir = checkout('fix', fork.repoDir);
    const forkHead = git(fork.repoDir, 'rev-parse', 'fix');
    await writeFile(path.join(dir, 'cfg.js'), `const key = process.env.KEY;\n/merge\n`);

    const result = await deliver(
      input(dir, await mrTarget(rec.iid), {
        notes: new GitLabNoteTarget(w.gitlab, project.id, { type: 'merge_request', iid: rec.iid }),
      }),
    );

    expect(result).to.include({ status: 'patch-posted', branch: 'fix' });
    const notes = await w.gitlab.listNotes(project.id, { type: 'merge_request', iid: rec.iid });
    const body = notes[0]!.body;
    expect(body).to.match(/^<!-- mr-agent:patch job=77 pipeline=7 task=t1 -->/);
    expect(body).to.contain('```diff\ndiff --git a/cfg.js b/cfg.js');
    expect(body).to.contain('+/merge');
    expect(w.standIn.model.quickActions).to.deep.equal([]);
    expect(git(fork.repoDir, 'rev-parse', 'fix')).to.equal(forkHead);
    expect(await readFile(path.join(dir, '.mr-agent/patch.diff'), 'utf8')).to.contain('+/merge');
  });

  it('H3 nothing changed → no commit; delivery.push false → nothing at all', async () => {
    const dir = checkout('feature/greeting');
    expect(await deliver(input(dir, await mrTarget()))).to.deep.equal({ status: 'no-changes' });
    await writeFile(path.join(dir, 'x.txt'), 'x\n');
    expect(await deliver(input(dir, await mrTarget(), { push: false }))).to.deep.equal({
      status: 'disabled',
    });
    expect(git(dir, 'status', '--porcelain')).to.equal('?? x.txt');
  });
});

describe('phases/deliver/patch-note', () => {
  it('M3 H0 an oversized patch is cut below GitLab’s limit with its fence closed and a pointer to the artifact', () => {
    const diff = `diff --git a/big.txt b/big.txt\n${'+line\n'.repeat(200_000)}`;
    const body = renderPatchNote({
      marker: { job: '1' },
      branch: 'fix',
      reason: 'fork',
      diff,
      filesChanged: 1,
      artifactPath: '.mr-agent/patch.diff',
      redactor: new Redactor(),
    });
    expect(body.length).to.be.at.most(900_000);
    expect(body).to.contain('.mr-agent/patch.diff');
    expect(body.match(/^```/gm)).to.have.length(2);
    expect(hasUnescapedQuickAction(body)).to.equal(false);
  });
});
