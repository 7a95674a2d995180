// The run's context budget (SPEC K4) and memory:
// - prompt tokens per model call for scripted runs of 10 and 50 actions
//   (goal: the 50-action run costs at most 6× the 10-action run in total);
// - peak RSS of a run whose command prints 10 MB (goal: < 200 MB).
// Tokens are estimated as characters / 4 of what the run sends to the model.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config/load.ts';
import type {
  ChatMessage,
  ChatReply,
  JsonReply,
  JsonRequest,
  LlmPort,
  ToolCall,
} from '../src/core/llm-port.ts';
import { createSilentLogger } from '../src/log/logger.ts';
import { Redactor } from '../src/log/redact.ts';
import { FakeClock } from '../src/core/clock.ts';
import { runTask } from '../src/run/orchestrator.ts';
import type { RunHistory, RunReporter } from '../src/core/ports.ts';
import { promptLibrary } from '../src/core/prompts.ts';
import { ExecaShell } from '../src/shell/execa-shell.ts';
import { taskFromText } from '../src/task/task-yaml.ts';

const chars = (messages: readonly ChatMessage[]) =>
  messages.reduce(
    (n, m) =>
      n +
      (m.content ?? '').length +
      (m.role === 'assistant'
        ? (m.toolCalls ?? []).reduce((k, c) => k + c.arguments.length, 0)
        : 0),
    0,
  );
const tokens = (n: number) => Math.ceil(n / 4);
const usage = (prompt: number, reply: number) => ({
  promptTokens: tokens(prompt),
  completionTokens: tokens(reply),
  totalTokens: tokens(prompt) + tokens(reply),
});

function planOf(n: number) {
  const ids = Array.from({ length: n }, (_, i) => `task_${i + 1}`);
  return {
    goal_understanding: {
      main_objective: `Update ${n} modules`,
      success_criteria: ['Every module is updated', 'The tests pass'],
      constraints: [],
      context: 'benchmark',
    },
    task_decomposition: {
      reasoning: 'One module per subtask.',
      subtasks: ids.map((id) => ({
        id,
        description: `Update module ${id}`,
        dependencies: [],
        estimated_complexity: 'low',
        required_tools: ['read_file', 'write_file'],
      })),
    },
    action_plan: {
      execution_order: ids,
      actions: ids.map((id) => ({
        task_id: id,
        action_type: 'tool_call',
        tool: 'write_file',
        purpose: `Rewrite src/${id}.ts with the new API`,
        expected_outcome: 'The module uses the new API',
        fallback_strategy: 'Patch the module instead',
      })),
    },
    selected_environment: {
      name: 'node',
      reason: 'bench',
      detected_files: [],
      setup_commands: [],
      verification: [],
    },
    comment: 'Plan completed.',
  };
}

/**
 * A model that plans `n` actions; each action reads its module (4 kB), writes
 * it back (4 kB) and says DONE. `bigCommand` makes the first action run it.
 */
function benchModel(n: number, bigCommand?: string) {
  const calls: Array<{ purpose: string; promptTokens: number }> = [];
  let turn = 0;
  let action = 0;
  const llm: LlmPort = {
    async json<T>(request: JsonRequest<T>): Promise<JsonReply<T>> {
      const value =
        request.purpose === 'planning'
          ? planOf(n)
          : request.purpose === 'reflection'
            ? {
                reflection: {
                  action_evaluated: 'last',
                  status: 'success',
                  evaluation: 'fine',
                  issues_identified: [],
                  plan_revision_needed: false,
                },
                plan_revision: null,
                comment: '',
              }
            : {
                type: 'completion_assessment',
                summary: 'done',
                details: { passed_criteria: ['AC-1', 'AC-2'], remaining_risks: [] },
                all_criteria_satisfied: true,
              };
      const raw = JSON.stringify(value);
      const size = chars(request.messages);
      calls.push({ purpose: request.purpose, promptTokens: tokens(size) });
      return { value: request.schema.parse(value), raw, usage: usage(size, raw.length), reasks: 0 };
    },
    async chat(request): Promise<ChatReply> {
      const size = chars(request.messages);
      calls.push({ purpose: request.purpose, promptTokens: tokens(size) });
      if (request.purpose.startsWith('review.')) {
        const verdict = '{"result": "PASS", "feedback": ""}';
        const reply = { content: verdict, toolCalls: [], finishReason: 'stop' };
        return { ...reply, usage: usage(size, verdict.length), model: 'bench' };
      }
      turn += 1;
      const id = `task_${action + 1}`;
      let toolCalls: ToolCall[] = [];
      let content: string | null = null;
      if (turn === 1 && bigCommand && action === 0)
        toolCalls = [
          {
            id: `c${action}-0`,
            name: 'run_command',
            arguments: JSON.stringify({ command: bigCommand }),
          },
        ];
      else if (turn === 1 || (turn === 2 && bigCommand && action === 0))
        toolCalls = [
          {
            id: `c${action}-1`,
            name: 'read_file',
            arguments: JSON.stringify({ path: `src/${id}.ts` }),
          },
        ];
      else if (toolCallsDone(turn, action, bigCommand))
        toolCalls = [
          {
            id: `c${action}-2`,
            name: 'write_file',
            arguments: JSON.stringify({
              path: `src/${id}.ts`,
              content: `// updated\n${'x'.repeat(4000)}\n`,
            }),
          },
        ];
      else {
        content = `DONE: updated src/${id}.ts`;
        turn = 0;
        action += 1;
      }
      return {
        content,
        toolCalls,
        finishReason: 'stop',
        usage: usage(size, (content ?? '').length),
        model: 'bench',
      };
    },
  };
  return { llm, calls };
}

function toolCallsDone(turn: number, action: number, bigCommand?: string): boolean {
  return turn === (bigCommand && action === 0 ? 3 : 2);
}

const noReporter: RunReporter = {
  phase: () => undefined,
  step: () => undefined,
  review: () => undefined,
  plan: () => undefined,
  item: () => undefined,
  comment: () => undefined,
  environment: async () => undefined,
  final: async () => undefined,
};
const noHistory: RunHistory = {
  pastExecutions: async () => [],
  savePlan: async () => undefined,
  saveRevision: async () => undefined,
  saveReflection: async () => undefined,
  saveExecution: async () => undefined,
};

async function scriptedRun(n: number, bigCommand?: string) {
  const dir = await mkdtemp(path.join(tmpdir(), 'mr-agent-bench-'));
  try {
    await writeFile(path.join(dir, 'package.json'), '{}');
    const { mkdir } = await import('node:fs/promises');
    await mkdir(path.join(dir, 'src'));
    for (let i = 1; i <= n; i++)
      await writeFile(path.join(dir, `src/task_${i}.ts`), `// module\n${'y'.repeat(4000)}\n`);
    const { config } = await loadConfig({ env: {}, file: null });
    const model = benchModel(n, bigCommand);
    const outcome = await runTask(
      {
        config,
        llm: model.llm,
        shell: new ExecaShell(),
        clock: new FakeClock(),
        logger: createSilentLogger(),
        redactor: new Redactor(),
        hostEnv: { PATH: process.env.PATH },
        prompts: promptLibrary(),
        reporter: noReporter,
        history: noHistory,
      },
      { task: taskFromText(`Update ${n} modules`, { repo: dir }), repoDir: dir, maxLoops: 3 },
    );
    if (outcome.state !== 'COMPLETE') throw new Error(`bench run failed: ${outcome.summary}`);
    return model.calls;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function summary(calls: Array<{ purpose: string; promptTokens: number }>) {
  const exec = calls.filter((c) => c.purpose === 'execution').map((c) => c.promptTokens);
  const total = calls.reduce((n, c) => n + c.promptTokens, 0);
  return {
    calls: calls.length,
    total,
    execMean: Math.round(exec.reduce((a, b) => a + b, 0) / exec.length),
    execMax: Math.max(...exec),
    lastExec: exec[exec.length - 1]!,
  };
}

if (process.argv.includes('--rss-child')) {
  const big = process.argv.includes('--big');
  await scriptedRun(3, big ? "head -c 10485760 /dev/zero | tr '\\0' 'x'" : undefined);
  process.stdout.write(String(process.resourceUsage().maxRSS));
} else {
  const ten = summary(await scriptedRun(10));
  const fifty = summary(await scriptedRun(50));
  console.log('run: prompt tokens (estimated, chars/4) of scripted runs');
  for (const [name, s] of [
    ['10 actions', ten],
    ['50 actions', fifty],
  ] as const)
    console.log(
      `  ${name}: ${s.calls} calls, total ${s.total}, per execution step mean ${s.execMean} / max ${s.execMax} / last ${s.lastExec}`,
    );
  const ratio = fifty.total / ten.total;
  console.log(
    `  50-action total / 10-action total = ${ratio.toFixed(2)} (goal ≤ 6) ${ratio <= 6 ? 'ok' : 'OVER'}`,
  );
  const self = fileURLToPath(import.meta.url);
  const peakMb = (...flags: string[]) =>
    Number(
      execFileSync(process.execPath, ['--import', 'tsx', self, '--rss-child', ...flags], {
        encoding: 'utf8',
      }),
    ) / 1024;
  const baseline = peakMb();
  const rssMb = peakMb('--big');
  console.log(
    `run: peak RSS with 10 MB of command output: ${rssMb.toFixed(0)} MB (the same run without it: ${baseline.toFixed(0)} MB; goal < 200 MB) ${rssMb < 200 ? 'ok' : 'OVER'}`,
  );
}
