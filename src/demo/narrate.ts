/**
 * What the demo says while the run goes on: the start checks, each setup
 * command and verification, and each tool call the model makes — one line
 * each, so the terminal explains what the progress note summarises.
 */
import type { StartCheckResult } from '../gitlab/checks.ts';
import { roleOf } from '../gitlab/access-levels.ts';
import type { JsonReply, JsonRequest, LlmPort } from '../core/llm-port.ts';
import { parseReviewVerdict } from '../llm/review-verdict.ts';
import { briefArguments } from '../phases/execute/tool-brief.ts';
import type { EnvironmentSetupOutcome } from '../core/ports.ts';
import type { Shell } from '../core/shell-port.ts';
import type { Tool } from '../core/tool.ts';
import type { LiveView } from './live-view.ts';

function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

export function describeChecks(checks: StartCheckResult): string[] {
  const role =
    checks.triggeringUserLevel === undefined
      ? 'no triggering user'
      : `the commenter ${roleOf(checks.triggeringUserLevel)}`;
  return [
    `token has ${checks.token?.scopes.join(', ') ?? 'unknown'} scope · bot user @${checks.bot.username} · ${role}` +
      ` · ${checks.configFile ? checks.configFile.location : 'no .mr-agent.yml'}`,
  ];
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** One line for the environment sub-phase's result. */
export function describeEnvironment(outcome: EnvironmentSetupOutcome): string {
  const h = outcome.handoff;
  const checks = `verification ${outcome.verificationsPassed}/${outcome.verificationsTotal} matched exactly`;
  return h.environment_ready
    ? `→ ${h.environment_name} environment ready (${plural(outcome.setupCommands, 'setup command')}, ${checks})`
    : `→ ${h.environment_name} environment not ready (${h.setup_status}); the run goes on with a warning`;
}

/** A shell that announces each command it runs (the environment setup's commands and checks). */
export function narratedShell(shell: Shell, view: LiveView, prefix: string): Shell {
  return {
    async run(request) {
      const result = await shell.run(request);
      const oneWord = result.stdout.length <= 40 && !result.stdout.includes('\n');
      const printed = oneWord ? `, printed ${JSON.stringify(result.stdout)}` : '';
      view.line(
        `${prefix}${result.failed ? '✗' : '✓'} $ ${request.command}  ${view.dim(`(exit ${result.exitCode ?? 'none'}${printed}, ${seconds(result.durationMs)})`)}`,
      );
      return result;
    },
  };
}

function commandStatus(output: string): string {
  const match = /exit code: (\w+)/.exec(output);
  return match ? `exit ${match[1]}` : '';
}

/** The tools, each call announced on the terminal when it finishes. */
export function narratedTools(tools: readonly Tool[], view: LiveView, now: () => number): Tool[] {
  return tools.map((tool) => ({
    ...tool,
    async run(args: unknown, ctx) {
      const started = now();
      const brief = briefArguments({ id: '', name: tool.name, arguments: JSON.stringify(args) });
      const say = (ok: boolean, output: string) => {
        const status = tool.name === 'run_command' ? commandStatus(output) : '';
        const extra = [status, seconds(now() - started)].filter(Boolean).join(', ');
        view.line(`      ${ok ? '·' : '✗'} ${tool.name} ${brief}  ${view.dim(`(${extra})`)}`);
      };
      try {
        const output = await tool.run(args, ctx);
        say(true, output);
        return output;
      } catch (error) {
        say(false, error instanceof Error ? error.message : String(error));
        throw error;
      }
    },
  }));
}

type Fields = Record<string, unknown>;

/** A few words on what a JSON reply said, by purpose. */
export function summariseReply(purpose: string, value: unknown): string {
  const v = (value ?? {}) as Fields;
  const get = (key: string) => (v[key] ?? {}) as Fields;
  if (purpose === 'planning') {
    const subtasks = (get('task_decomposition').subtasks as unknown[] | undefined)?.length ?? 0;
    const actions = (get('action_plan').actions as unknown[] | undefined)?.length ?? 0;
    const env = get('selected_environment').name as string | undefined;
    return v.error
      ? 'the goal is unclear; asks for clarification'
      : `a plan: ${subtasks} subtasks, ${actions} actions, environment ${env ?? '?'}`;
  }
  if (purpose === 'reflection') {
    const r = get('reflection');
    return `${String(r.status)}; ${r.plan_revision_needed ? 'revises the plan' : 'no plan revision needed'}`;
  }
  if (purpose === 'completion')
    return v.all_criteria_satisfied
      ? `all criteria satisfied (${((get('details').passed_criteria as string[]) ?? []).join(', ')})`
      : 'criteria still open';
  if (purpose.startsWith('review.')) return `verdict ${String(v.result)}`;
  if (purpose.startsWith('replan.')) {
    const d = (v.replan_decision ?? v) as Fields;
    return d.replan_needed
      ? `replan (${String(d.replan_type)}, confidence ${String(d.confidence)})`
      : `keep the plan (confidence ${String(d.confidence)})`;
  }
  return 'answered';
}

/** The model, each JSON answer (plan, reflection, verdict, assessment) announced on the terminal. */
export function narratedLlm(llm: LlmPort, view: LiveView): LlmPort {
  return {
    async chat(request) {
      const reply = await llm.chat(request);
      if (request.purpose.startsWith('review.')) {
        const verdict = parseReviewVerdict(reply.content ?? '').result;
        view.line(`    model (${request.purpose}): verdict ${verdict}`);
      }
      return reply;
    },
    async json<T>(request: JsonRequest<T>): Promise<JsonReply<T>> {
      const reply = await llm.json(request);
      view.line(`    model (${request.purpose}): ${summariseReply(request.purpose, reply.value)}`);
      return reply;
    },
  };
}
