import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseMarker } from '../../src/report/marker.ts';
import { action, assessment, planWith } from '../support/plans.ts';
import { FAREWELL_RUN, JobWorld } from './job-world.ts';

function resultOf(dir: string): { status?: string; state?: string; exit_code?: number } {
  const file = path.join(dir, '.mr-agent', 'result.json');
  expect(existsSync(file), 'result.json is written').to.equal(true);
  return JSON.parse(readFileSync(file, 'utf8')) as { status?: string; exit_code?: number };
}

async function waitFor(what: string, done: () => boolean, limitMs = 45_000): Promise<void> {
  const end = Date.now() + limitMs;
  while (!done()) {
    if (Date.now() > end) throw new Error(`never reached: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Live (not zombie) processes whose real uid is `uid`, from /proc. */
function processesOf(uid: number): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    let status: string;
    try {
      status = readFileSync(`/proc/${pid}/status`, 'utf8');
    } catch {
      continue;
    }
    const real = /^Uid:\s+(\d+)/m.exec(status)?.[1];
    const state = /^State:\s+(\S)/m.exec(status)?.[1];
    if (Number(real) === uid && state !== 'Z')
      found.push(`${pid} ${/^Name:\s+(.*)$/m.exec(status)?.[1]}`);
  }
  return found;
}

/**
 * Every end is reported and leaves nothing behind (SPEC O4, M6): a failure
 * once the GitLab token works still posts a note and writes result.json;
 * a cancelled job pushes nothing and its result.json tells the process's own
 * end; and no process of the command user outlives the job.
 */
describe('ci: every end reported (O4, M6)', function () {
  this.timeout(90_000);
  let world: JobWorld;

  beforeEach(async () => {
    world = await JobWorld.start();
  });
  afterEach(async () => {
    world.standIn.faults.clear();
    await world.close();
  });

  const botNotes = () => world.standIn.model.notes.filter((n) => n.authorId === world.s.bot.id);

  it("O4 a bad MR_AGENT_ISOLATION in the job's environment: a reply names the variable, result.json says failed, exit 2", async () => {
    const variables: Record<string, string> = {
      ...world.bridgeVariables('run', 'add a farewell function'),
      MR_AGENT_ISOLATION: 'sometimes',
    };
    const command = world.standIn.model.notes.find(
      (n) => n.id === Number(variables.MR_AGENT_NOTE_ID),
    )!;

    const job = await world.job({ replies: [], variables });

    expect(job.code, job.stderr.slice(-2000)).to.equal(2);
    expect(job.llm.requests).to.have.length(0);
    const replies = botNotes();
    expect(replies).to.have.length(1);
    expect(replies[0]!.discussionId).to.equal(command.discussionId);
    expect(replies[0]!.body).to.contain('MR_AGENT_ISOLATION').and.to.contain('sometimes');
    expect(resultOf(job.dir)).to.include({ status: 'failed', state: 'failed', exit_code: 2 });
  });

  it('M4 a bad MR_AGENT_ISOLATION and a requester without the role: no note at all', async () => {
    const noteId = world.standIn.model.addNote({
      on: world.s.mergeRequest,
      body: '/agent run add a farewell function',
      authorId: world.s.guest.id,
    }).id;
    const variables = {
      ...world.bridgeVariables('run', 'add a farewell function'),
      MR_AGENT_NOTE_ID: String(noteId),
      MR_AGENT_TRIGGERED_BY: String(world.s.guest.id),
      MR_AGENT_ISOLATION: 'sometimes',
    };

    const job = await world.job({ replies: [], variables });

    expect(job.code).to.not.equal(0);
    expect(botNotes()).to.deep.equal([]);
  });

  it('M6 SIGTERM during the run: result.json says cancelled with exit 143, as the process exits', async () => {
    world.standIn.faults.add({ method: 'GET', path: /protected_branches/, hang: true });
    const job = await world.job({
      replies: FAREWELL_RUN,
      variables: world.bridgeVariables('run', 'add a farewell function'),
      childProcess: true,
      whileRunning: async ({ signal }) => {
        await waitFor('delivery waiting for GitLab', () =>
          world.standIn.requests.entries.some(
            (e) => e.status === 0 && e.path.includes('protected_branches'),
          ),
        );
        signal('SIGTERM');
      },
    });

    expect(job.code, job.stderr.slice(-3000)).to.equal(143);
    expect(resultOf(job.dir)).to.include({ state: 'cancelled', exit_code: 143 });
    expect(parseMarker(world.progressNotes()[0]!.body)?.state).to.equal('cancelled');
  });

  it('M6 SIGTERM before the run starts (checkout waiting): result.json says cancelled with exit 143', async () => {
    // the merge request's read hangs: the job is still preparing when the signal comes
    world.standIn.faults.add({ method: 'GET', path: /merge_requests\/\d+$/, hang: true });
    const job = await world.job({
      replies: FAREWELL_RUN,
      variables: world.bridgeVariables('run', 'add a farewell function'),
      childProcess: true,
      whileRunning: async ({ signal }) => {
        await waitFor('the job waiting for GitLab', () =>
          world.standIn.requests.entries.some(
            (e) => e.status === 0 && /merge_requests\/\d+$/.test(e.path),
          ),
        );
        signal('SIGTERM');
      },
    });

    expect(job.code, job.stderr.slice(-3000)).to.equal(143);
    expect(resultOf(job.dir)).to.include({ state: 'cancelled', exit_code: 143 });
  });

  const asRoot = process.getuid?.() === 0;
  (asRoot ? it : it.skip)(
    'M6 no process of the command user outlives the job: a setsid child and one that ignores SIGHUP are killed',
    async () => {
      // a uid of its own, so no other test's commands are in its way (the user is the job's alone)
      const uid = 47_000 + Math.floor(Math.random() * 2000);
      const leave = [
        'setsid sleep 1000 >/dev/null 2>&1 < /dev/null &',
        'nohup sh -c \'trap "" HUP TERM; sleep 1001\' >/dev/null 2>&1 < /dev/null &',
        'echo left',
      ].join(' ');
      const replies = [
        {
          purpose: 'planning',
          json: planWith([action('task_1', 'Start helpers', 'run_command')], ['helpers run']),
        },
        {
          purpose: 'execution',
          tool_calls: [{ name: 'run_command', arguments: { command: leave } }],
        },
        { purpose: 'execution', content: 'DONE: started' },
        { purpose: 'completion', json: assessment(true) },
      ];
      let during: string[] = [];
      const job = await world.job({
        replies,
        childProcess: true,
        variables: {
          ...world.bridgeVariables('run', 'start the helpers'),
          MR_AGENT_ISOLATION: 'required',
          MR_AGENT_COMMAND_USER: `${uid}:${uid}`,
          MR_AGENT_TEST_COMMAND: '',
        },
        whileRunning: async ({ llm }) => {
          await waitFor('the command ran', () => llm.requests.length >= 3);
          during = processesOf(uid);
        },
      });
      try {
        expect(job.code, job.stderr.slice(-3000)).to.equal(0);
        expect(during.length, 'the helpers were running during the job').to.be.at.least(2);
        expect(processesOf(uid)).to.deep.equal([]);
      } finally {
        for (const line of processesOf(uid)) process.kill(Number(line.split(' ')[0]), 'SIGKILL');
      }
    },
  );
});
