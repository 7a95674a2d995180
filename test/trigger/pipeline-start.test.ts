import { expect } from 'chai';
import { ConfigError, ExternalServiceError } from '../../src/errors/errors.ts';
import { createMemoryLogger } from '../../src/log/logger.ts';
import { Redactor } from '../../src/log/redact.ts';
import type { BridgeGitLab, PipelineRequest } from '../../src/commands/bridge-port.ts';
import type { CommandRequest } from '../../src/commands/note-rules.ts';
import {
  createPipelineStarter,
  NO_INPUTS_MEMORY_MS,
  type PassAs,
} from '../../src/trigger/pipeline-start.ts';

/** #21: the order of attempts and what `auto` remembers, against a GitLab that answers as a project without the header. */
const NO_SPEC = new ExternalServiceError(
  'gitlab',
  'POST /api/v4/projects/1/trigger/pipeline answered HTTP 422: {"base":["Given inputs not defined in the `spec` section of the included configuration file"]}',
  { status: 422 },
);

function gitlab(): { port: BridgeGitLab; sent: PipelineRequest[] } {
  const sent: PipelineRequest[] = [];
  const port = {
    async triggerPipeline(_p: number, ref: string, _t: string, request: PipelineRequest) {
      sent.push(request);
      if (request.inputs) throw NO_SPEC;
      return { id: sent.length, status: 'created', ref };
    },
  } as unknown as BridgeGitLab;
  return { port, sent };
}

const request = (projectId: number): CommandRequest => ({
  projectId,
  noteId: 9,
  discussionId: undefined,
  target: { kind: 'issue', iid: 4 },
  ref: 'main',
  user: { id: 3, username: 'dev' },
  instruction: 'fix it',
  command: 'run',
});

function starter(passAs: PassAs, clock: { now: number }) {
  const g = gitlab();
  const { logger } = createMemoryLogger({
    redactor: new Redactor(),
    format: 'json',
    level: 'error',
  });
  const start = createPipelineStarter({
    gitlab: g.port,
    token: 't',
    passAs,
    logger,
    now: () => clock.now,
  });
  return { start, sent: g.sent };
}

const kinds = (sent: PipelineRequest[]) => sent.map((r) => (r.inputs ? 'inputs' : 'variables'));

describe('#21 trigger/pipeline-start', () => {
  it('#21 auto tries inputs, falls back to variables, and skips inputs for that project for a while', async () => {
    const clock = { now: 0 };
    const { start, sent } = starter('auto', clock);

    await start(request(1));
    await start(request(1));
    await start(request(2));
    clock.now = NO_INPUTS_MEMORY_MS + 1;
    await start(request(1));

    expect(kinds(sent)).to.deep.equal([
      'inputs',
      'variables',
      'variables',
      'inputs',
      'variables',
      'inputs',
      'variables',
    ]);
    expect(sent[1]!.variables).to.include({ MR_AGENT_TASK: 'fix it', MR_AGENT_ISSUE_IID: '4' });
    expect(sent[0]!.inputs).to.deep.equal({
      mr_agent_task: 'fix it',
      mr_agent_command: 'run',
      mr_agent_note_id: '9',
      mr_agent_issue_iid: '4',
      mr_agent_triggered_by: '3',
    });
  });

  it('#21 inputs never falls back: a project without the header is a configuration error saying to add it', async () => {
    const { start, sent } = starter('inputs', { now: 0 });

    const error = await start(request(1)).then(
      () => undefined,
      (e: unknown) => e,
    );

    expect(kinds(sent)).to.deep.equal(['inputs']);
    expect(error).to.be.instanceOf(ConfigError);
    expect((error as ConfigError).hint).to.contain('Requests as pipeline inputs');
  });

  it('#21 variables sends variables only', async () => {
    const { start, sent } = starter('variables', { now: 0 });

    await start(request(1));

    expect(kinds(sent)).to.deep.equal(['variables']);
  });
});
