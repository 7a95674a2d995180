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
import { deliver, type DeliveryInput } from '../../../src/phases/deliver/deliver.ts';
import { startWorld, type World } from '../../gitlab/world.ts';
import { ExecaShell } from '../../../src/shell/execa-shell.ts';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

const reverse = (text: string) => [...text].reverse().join('');
const hex = (text: string) => Buffer.from(text, 'utf8').toString('hex');
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/** How a command or a model may write the token into a file (issue 19 §3). */
const FORMS: Array<[string, (token: string) => string]> = [
  ['plain', (t) => `TOKEN=${t}\n`],
  ['hex', (t) => `${hex(`MR_AGENT_GITLAB_TOKEN=${t}`)}\n`],
  ['reversed', (t) => `${reverse(`MR_AGENT_GITLAB_TOKEN=${t}`)}\n`],
  ['base64 at offset 1', (t) => `${b64(`A=${t}\nPATH=/bin`)}\n`],
  ['base64 at offset 2', (t) => `${b64(`AB=${t}\nPATH=/bin`)}\n`],
  [
    'base64 wrapped at 76 characters',
    (t) => `${b64(`PATH=/usr/bin:/bin\0HOME=/root\0TOKEN=${t}\0`).replace(/(.{76})/g, '$1\n')}\n`,
  ],
];

describe('phases/deliver: secret scanning before the commit (issue 19 §3)', () => {
  let w: World;
  let work: string;
  let project: Project;
  let redactor: Redactor;

  beforeEach(async () => {
    w = await startWorld({}, { gitHttp: true, pathEnv: process.env.PATH });
    project = await w.gitlab.getProject(w.s.project.id);
    work = await mkdtemp(path.join(tmpdir(), 'deliver-scan-'));
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

  async function input(repoDir: string, body = 'Adds a note.'): Promise<DeliveryInput> {
    const memory = createMemoryLogger({ redactor, level: 'debug', format: 'json' });
    return {
      shell: new ExecaShell(),
      checkout: shellCheckout,
      repoDir,
      gitlab: w.gitlab,
      project,
      target: {
        kind: 'merge_request',
        mergeRequest: await w.gitlab.getMergeRequest(project.id, 1),
      },
      notes: new GitLabNoteTarget(w.gitlab, project.id, { type: 'merge_request', iid: 1 }),
      token: w.s.botToken.value,
      hostEnv: process.env,
      commit: {
        title: 'Add notes',
        body,
        author: { name: 'mr-agent', email: 'mr-agent@example.invalid' },
      },
      branchPrefix: 'mr-agent/',
      redactor,
      logger: memory.logger,
    };
  }

  for (const [name, write] of FORMS) {
    it(`a file holding the ${name} form of the GitLab token blocks the commit and the push; the artifact is clean (issue 19 §1)`, async () => {
      const dir = checkout('feature/greeting');
      const head = git(w.s.project.repoDir, 'rev-parse', 'refs/heads/feature/greeting');
      const token = w.s.botToken.value;
      await writeFile(path.join(dir, 'env.txt'), write(token));
      await writeFile(path.join(dir, 'notes.md'), 'an innocent change\n');

      const error = await deliver(await input(dir)).then(
        () => undefined,
        (e: unknown) => e,
      );

      expect(error).to.be.instanceOf(ModelBehaviorError);
      const message = (error as Error).message;
      expect(message).to.contain('a secret was withheld').and.contain('`env.txt`');
      expect(message).to.contain('nothing was committed or pushed').and.not.contain(token);
      expect(git(w.s.project.repoDir, 'rev-parse', 'refs/heads/feature/greeting')).to.equal(head);
      expect(git(dir, 'rev-parse', 'HEAD')).to.equal(head);
      const patch = await readFile(path.join(dir, '.mr-agent/patch.diff'), 'utf8');
      expect(patch).to.contain('notes.md').and.not.contain('env.txt');
      expect(redactor.findSecret(patch)).to.equal(false);
    });
  }

  it('a commit message holding the token (reversed) blocks the commit; the message is named, never the value (issue 19 §1)', async () => {
    const dir = checkout('feature/greeting');
    const head = git(w.s.project.repoDir, 'rev-parse', 'refs/heads/feature/greeting');
    await writeFile(path.join(dir, 'notes.md'), 'an innocent change\n');
    const error = await deliver(await input(dir, `Done. ${reverse(w.s.botToken.value)}`)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as Error).message).to.contain('a secret was withheld: the commit message');
    expect(git(w.s.project.repoDir, 'rev-parse', 'refs/heads/feature/greeting')).to.equal(head);
  });

  it('a change that deletes a committed secret is delivered (issue 19 §1)', async () => {
    const dir = checkout('feature/greeting');
    const token = w.s.botToken.value;
    await writeFile(path.join(dir, 'leak.txt'), `${token}\n`);
    git(dir, 'add', 'leak.txt');
    git(dir, '-c', 'user.name=a', '-c', 'user.email=a@b', 'commit', '-qm', 'leak');
    git(dir, 'rm', '-q', 'leak.txt');
    const result = await deliver(await input(dir));
    expect(result.status).to.equal('pushed');
  });
});
