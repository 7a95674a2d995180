import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { main } from '../../src/cli/main.ts';
import {
  seedScenario,
  startGitLabStandIn,
  type GitLabStandIn,
} from '../../src/testkit/gitlab-server/index.ts';
import { deliver, SECRET } from '../trigger/http-client.ts';
import { noteHook } from '../trigger/note-hook.ts';

function memoryIo(env: Record<string, string>) {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: {
      argv: [] as string[],
      env,
      cwd: process.cwd(),
      stdout: { write: (t: string) => out.push(t) },
      stderr: { write: (t: string) => err.push(t) },
      readStdin: async () => undefined,
    },
    out,
    err,
  };
}

describe('A2 mr-agent serve (CLI)', function () {
  this.timeout(30_000);

  it('refuses to start without its settings, naming each one (exit 2)', async () => {
    const { io, err } = memoryIo({});
    const code = await main({ ...io, argv: ['serve', '--port', '0'] });
    expect(code).to.equal(2);
    const text = err.join('');
    for (const name of [
      'MR_AGENT_GITLAB_URL',
      'MR_AGENT_GITLAB_TOKEN',
      'MR_AGENT_WEBHOOK_SECRET',
      'MR_AGENT_TRIGGER_TOKEN',
    ]) {
      expect(text).to.include(name);
    }
  });

  it('a bad --port is reported at --port, not at --set (exit 2)', async () => {
    const { io, err } = memoryIo({});
    const code = await main({ ...io, argv: ['serve', '--port', 'abc'] });
    expect(code).to.equal(2);
    expect(err.join('')).to.include(
      '--port: serve.port: expected a whole number between 0 and 65535, got "abc"',
    );
  });

  describe('as a child process', () => {
    let standIn: GitLabStandIn;
    before(async () => {
      standIn = await startGitLabStandIn();
    });
    after(() => standIn.close());

    it('serves webhooks, then on SIGTERM finishes its work and exits 0', async () => {
      const s = await seedScenario(standIn.model);
      const trigger = standIn.model.addTriggerToken(s.project, s.maintainer.id);
      const child = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          'src/cli/bin.ts',
          'serve',
          '--port',
          '0',
          '--set',
          'serve.host=127.0.0.1',
        ],
        {
          env: {
            PATH: process.env.PATH,
            MR_AGENT_GITLAB_URL: standIn.url,
            MR_AGENT_GITLAB_TOKEN: s.botToken.value,
            MR_AGENT_WEBHOOK_SECRET: SECRET,
            MR_AGENT_TRIGGER_TOKEN: trigger.value,
            MR_AGENT_LOG_FORMAT: 'json',
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stderr = '';
      const listening = new Promise<number>((resolve, reject) => {
        child.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk.toString('utf8');
          const match = /"message":"bridge listening","port":(\d+)/.exec(stderr);
          if (match) resolve(Number(match[1]));
        });
        child.once('exit', () => reject(new Error(`serve exited early:\n${stderr}`)));
      });
      const port = await listening;
      const base = `http://127.0.0.1:${port}`;
      expect((await fetch(`${base}/healthz`)).status).to.equal(200);

      const note = standIn.model.addNote({
        on: s.mergeRequest,
        body: '/agent fix the typo',
        authorId: s.developer.id,
      });
      const hook = noteHook({
        note: note.body,
        noteId: note.id,
        user: { id: s.developer.id, username: s.developer.username },
        projectId: s.project.id,
        iid: s.mergeRequest.iid,
        sourceBranch: s.mergeRequest.sourceBranch,
      });
      expect((await deliver(base, hook)).status).to.equal(202);
      child.kill('SIGTERM');
      const [code] = (await once(child, 'exit')) as [number | null];
      expect(code, stderr).to.equal(0);
      // trigger.pass_as auto: the scenario project declares no pipeline inputs, so GitLab
      // keeps the refused inputs attempt as a failed pipeline and the bridge passes variables
      const triggered = standIn.model.pipelines.filter((p) => p.source === 'trigger');
      expect(triggered.map((p) => p.status)).to.deep.equal(['failed', 'pending']);
      expect(triggered[1]!.variables.MR_AGENT_TASK).to.equal('fix the typo');
      expect(stderr).to.include('"message":"bridge stopped"');
      for (const secret of [s.botToken.value, trigger.value, SECRET]) {
        expect(stderr).to.not.include(secret);
      }
    });
  });
});
