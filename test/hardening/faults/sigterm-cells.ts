import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { ScriptedReplyInput } from '../../../src/testkit/openai-server/scenario.ts';
import { action, planWith } from '../../support/plans.ts';
import { startRunWorld, type RunWorld } from '../support/run-world.ts';

/**
 * SIGTERM in each phase (SPEC M6): `mr-agent run` as a child process is
 * stopped while it waits in a phase — for the model (a reply that never
 * comes) or for a command (a sleep). It must write its final state
 * ("cancelled") to the progress note, the run record and result.json,
 * keep its history, stop the command it started, and exit 143.
 */
const SLEEP = 'sleep 31.337';

export const SIGTERM_PHASES = [
  'planning',
  'environment_setup',
  'execution',
  'verification',
  'completion',
] as const;
export type SigtermPhase = (typeof SIGTERM_PHASES)[number];

function started(phase: string): string {
  return `touch .started-${phase} && ${SLEEP}`;
}

function planFor(phase: SigtermPhase) {
  const plan = planWith([action('task_1', 'Write the answer', 'write_file')]);
  if (phase === 'environment_setup') {
    plan.selected_environment.setup_commands = [started('environment_setup')];
  }
  return plan;
}

function scenarioFor(phase: SigtermPhase): {
  replies: ScriptedReplyInput[];
  env: Record<string, string>;
  sets: string[];
} {
  const hang = (purpose: string): ScriptedReplyInput => ({ purpose, fault: 'hang' });
  const plan: ScriptedReplyInput = { purpose: 'planning', json: planFor(phase) };
  const write: ScriptedReplyInput = {
    purpose: 'execution',
    tool_calls: [{ name: 'write_file', arguments: { path: 'answer.txt', content: '42\n' } }],
  };
  const done: ScriptedReplyInput = { purpose: 'execution', content: 'DONE: wrote answer.txt' };
  const replies: Record<SigtermPhase, ScriptedReplyInput[]> = {
    planning: [hang('planning')],
    environment_setup: [plan],
    execution: [
      plan,
      {
        purpose: 'execution',
        tool_calls: [{ name: 'run_command', arguments: { command: started('execution') } }],
      },
    ],
    verification: [plan, write, done],
    completion: [plan, write, done, hang('completion')],
  };
  return {
    replies: replies[phase],
    env: phase === 'environment_setup' ? { MR_AGENT_ENVIRONMENT_SETUP: 'true' } : {},
    sets: [
      'llm.timeout_sec=120',
      ...(phase === 'verification' ? [`execution.test_command=${started('verification')}`] : []),
    ],
  };
}

async function waitFor(what: string, done: () => boolean, output: () => string): Promise<void> {
  const end = Date.now() + 20_000;
  while (!done()) {
    if (Date.now() > end) throw new Error(`never reached: ${what}\n${output().slice(-3000)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Processes whose command line holds the marker sleep (the command the run started). */
async function leftoverSleeps(): Promise<number> {
  let count = 0;
  for (const pid of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(pid)) continue;
    const cmd = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmd.replace(/\0/g, ' ').includes('31.337') && !cmd.includes('touch')) count++;
  }
  return count;
}

export async function sigtermCell(phase: SigtermPhase): Promise<string> {
  const scenario = scenarioFor(phase);
  const world: RunWorld = await startRunWorld(scenario);
  try {
    const { child, output, exit } = world.spawnChild();
    const purpose = phase === 'planning' || phase === 'completion' ? phase : undefined;
    await waitFor(
      `${phase} under way`,
      () =>
        purpose
          ? world.server.requests.some((r) => r.purpose === purpose && r.outcome === 'fault')
          : existsSync(path.join(world.dir, `.started-${phase}`)),
      output,
    );
    const sent = Date.now();
    child.kill('SIGTERM');
    const code = await exit;
    const took = Date.now() - sent;
    expect(code, output().slice(-3000)).to.equal(143);
    const state = await world.state();
    expect(state.progressState, 'progress note').to.equal('cancelled');
    expect(state.runs.map((r) => r.state)).to.deep.equal(['cancelled']);
    expect(state.result?.state, 'result.json').to.equal('cancelled');
    expect(state.result?.status, 'result.json').to.equal('failed');
    if (phase !== 'planning') expect(state.historyEntries, 'history kept').to.be.at.least(1);
    expect(await leftoverSleeps(), 'the started command is stopped').to.equal(0);
    return `✓ exit 143 after ${took} ms; note, runs.json, result.json "cancelled"; history ${state.historyEntries} entr${state.historyEntries === 1 ? 'y' : 'ies'}`;
  } finally {
    await world.close();
  }
}
