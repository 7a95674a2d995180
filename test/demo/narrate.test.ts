import { expect } from 'chai';
import { LiveView } from '../../src/demo/live-view.ts';
import {
  describeEnvironment,
  narratedLlm,
  narratedShell,
  narratedTools,
  summariseReply,
} from '../../src/demo/narrate.ts';
import type { LlmPort } from '../../src/core/llm-port.ts';
import type { Shell } from '../../src/core/shell-port.ts';
import { defineTool } from '../../src/tools/registry.ts';
import { ToolError } from '../../src/tools/registry.ts';
import { z } from 'zod';

function plainView() {
  let text = '';
  return {
    view: new LiveView({ write: (t: string) => (text += t) }, { live: false, color: false }),
    text: () => text,
  };
}

const usage = { promptTokens: 1, completionTokens: 1, totalTokens: 2 };

describe('demo/narrate: one line per step of the run', () => {
  it('summarises the JSON answers by purpose', () => {
    expect(
      summariseReply('planning', {
        task_decomposition: { subtasks: [{}, {}] },
        action_plan: { actions: [{}, {}, {}] },
        selected_environment: { name: 'node' },
      }),
    ).to.equal('a plan: 2 subtasks, 3 actions, environment node');
    expect(summariseReply('planning', { error: { type: 'unclear_goal' } })).to.contain('unclear');
    expect(
      summariseReply('reflection', {
        reflection: { status: 'failure', plan_revision_needed: true },
      }),
    ).to.equal('failure; revises the plan');
    expect(
      summariseReply('completion', {
        all_criteria_satisfied: true,
        details: { passed_criteria: ['AC-1'] },
      }),
    ).to.equal('all criteria satisfied (AC-1)');
  });

  it('announces JSON answers and review verdicts, and passes replies through unchanged', async () => {
    const { view, text } = plainView();
    const inner: LlmPort = {
      chat: async () => ({
        content: 'Looks good.\n{"result": "PASS_WITH_SUGGESTIONS", "feedback": "x"}',
        toolCalls: [],
        finishReason: 'stop',
        usage,
        model: 'm',
      }),
      json: async <T>() => ({
        value: { all_criteria_satisfied: false } as T,
        raw: '{}',
        usage,
        reasks: 0,
      }),
    };
    const llm = narratedLlm(inner, view);
    await llm.chat({ purpose: 'review.planning', role: 'review', messages: [] });
    await llm.chat({ purpose: 'execution', role: 'execution', messages: [] });
    const reply = await llm.json({
      purpose: 'completion',
      role: 'planning',
      messages: [],
      schema: z.object({ all_criteria_satisfied: z.boolean() }),
      schemaName: 'c',
    });
    expect(reply.value).to.deep.equal({ all_criteria_satisfied: false });
    expect(text()).to.equal(
      '    model (review.planning): verdict PASS_WITH_SUGGESTIONS\n    model (completion): criteria still open\n',
    );
  });

  it('announces commands with their exit code and a one-word output, and tool calls with failures marked', async () => {
    const { view, text } = plainView();
    const result = (stdout: string, exitCode: number) => ({
      command: '',
      exitCode,
      stdout,
      stderr: '',
      output: stdout,
      durationMs: 12,
      timedOut: false,
      cancelled: false,
      outputTruncated: false,
      signal: undefined,
      failed: exitCode !== 0,
      spawnError: undefined,
    });
    const shell: Shell = {
      run: async (r) => result(r.command === 'ok' ? 'true' : 'a\nb', r.command === 'ok' ? 0 : 1),
    };
    const narrated = narratedShell(shell, view, '  env: ');
    await narrated.run({ command: 'ok', cwd: '.', env: {} });
    await narrated.run({ command: 'bad', cwd: '.', env: {} });
    const echo = defineTool({
      name: 'echo_tool',
      description: 'test',
      args: z.object({ path: z.string() }),
      run: async (args) => {
        if (args.path === 'nope') throw new ToolError('no such file');
        return 'fine';
      },
    });
    const [tool] = narratedTools([echo], view, () => 0);
    expect(await tool!.run({ path: 'a.txt' }, {} as never)).to.equal('fine');
    await tool!.run({ path: 'nope' }, {} as never).catch(() => undefined);
    expect(text()).to.equal(
      [
        '  env: ✓ $ ok  (exit 0, printed "true", 12 ms)',
        '  env: ✗ $ bad  (exit 1, 12 ms)',
        '      · echo_tool a.txt  (0 ms)',
        '      ✗ echo_tool nope  (0 ms)',
        '',
      ].join('\n'),
    );
  });

  it('describes the environment hand-off', () => {
    const handoff = {
      environment_ready: true,
      environment_name: 'node' as const,
      setup_status: 'success' as const,
      errors: [],
    };
    expect(
      describeEnvironment({
        handoff,
        setupCommands: 1,
        verificationsPassed: 2,
        verificationsTotal: 2,
        durationMs: 5,
      }),
    ).to.equal('→ node environment ready (1 setup command, verification 2/2 matched exactly)');
  });
});
