import { createMemoryLogger } from '../../src/log/logger.ts';
import { Redactor } from '../../src/log/redact.ts';
import { FakeClock } from '../../src/core/clock.ts';
import { ExecaShell } from '../../src/shell/execa-shell.ts';
import type { TaskSpec } from '../../src/task/task-yaml.ts';
import type { Worker, WorkerRunRecord, WorkerRunRequest } from '../../src/workers/port.ts';
import type { AgentRunnerDeps } from '../../src/run/agent-runner.ts';
import type { ScriptedLlm } from './scripted-llm.ts';

/** An in-memory worker that answers from a script and records what it was asked. */
export class FakeWorker implements Worker {
  readonly requests: WorkerRunRequest[] = [];
  private n = 0;

  constructor(
    readonly kind: string,
    private readonly results: Partial<WorkerRunRecord>[],
  ) {}

  async runWorker(request: WorkerRunRequest): Promise<WorkerRunRecord> {
    this.requests.push(request);
    const scripted = this.results.shift();
    if (!scripted) throw new Error('FakeWorker: unexpected worker run');
    this.n += 1;
    return {
      id: `run-${this.n}`,
      kind: this.kind,
      startedAt: '2025-01-01T00:00:00.000Z',
      finishedAt: '2025-01-01T00:00:01.000Z',
      exitCode: 0,
      rawOutput: 'worker output',
      summary: 'did the work',
      timedOut: false,
      cancelled: false,
      durationMs: 1000,
      ...scripted,
    };
  }
}

export function task(overrides: Partial<TaskSpec> = {}): TaskSpec {
  return {
    id: 'TASK-1',
    title: 'Greeting',
    repo: '.',
    description: '',
    prd: { text: 'Add a file hello.txt that says hello.' },
    maxLoops: 3,
    meta: { kind: 'openai-chat' },
    worker: { kind: 'codex-cli', maxRunTimeSec: 60, env: {} },
    dependencies: [],
    ...overrides,
  };
}

export function deps(
  llm: ScriptedLlm,
  cwd: string,
  extra: Partial<AgentRunnerDeps> = {},
): AgentRunnerDeps & { lines: string[] } {
  const { logger, lines } = createMemoryLogger({ level: 'debug', redactor: new Redactor() });
  return {
    llm,
    shell: new ExecaShell(),
    clock: new FakeClock(),
    logger,
    redactor: new Redactor(),
    hostEnv: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd },
    cwd,
    lines,
    ...extra,
  };
}

/** The from → to pairs of the `state transition` log lines. */
export function transitions(lines: readonly string[]): string[] {
  return lines
    .filter((line) => line.includes('state transition'))
    .map((line) => {
      const match = /"from":"([A-Z]+)","to":"([A-Z]+)"/.exec(line);
      return match ? `${match[1]}→${match[2]}` : line;
    });
}
