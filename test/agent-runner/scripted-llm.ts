import { ModelBehaviorError } from '../../src/errors/errors.ts';
import type { ChatReply, JsonReply, JsonRequest, LlmPort } from '../../src/core/llm-port.ts';

/** One scripted answer: which call it answers, and the reply (an object, or raw text). */
export interface Scripted {
  call: 'plan_task' | 'next_action' | 'completion_assessment';
  reply: unknown;
}

/**
 * An in-memory LlmPort for AgentRunner tests: answers `json` calls from a
 * script, validates each reply with the request's schema and re-asks (takes
 * the next scripted reply) up to `maxReasks` times, like the real port.
 * Fails on a call it did not expect; `assertAllUsed` checks nothing is left.
 */
export class ScriptedLlm implements LlmPort {
  readonly requests: JsonRequest<unknown>[] = [];
  private readonly script: Scripted[];

  constructor(
    script: Scripted[],
    private readonly maxReasks = 3,
  ) {
    this.script = [...script];
  }

  async chat(): Promise<ChatReply> {
    throw new Error('ScriptedLlm: unexpected chat call');
  }

  async json<T>(request: JsonRequest<T>): Promise<JsonReply<T>> {
    this.requests.push(request as JsonRequest<unknown>);
    for (let reasks = 0; ; reasks += 1) {
      const next = this.script.shift();
      if (!next) throw new Error(`ScriptedLlm: unexpected ${request.schemaName} call`);
      if (next.call !== request.schemaName)
        throw new Error(`ScriptedLlm: expected a ${next.call} call, got ${request.schemaName}`);
      const raw = typeof next.reply === 'string' ? next.reply : JSON.stringify(next.reply);
      const parsed = request.schema.safeParse(safeJson(raw));
      if (parsed.success) {
        return {
          value: parsed.data,
          raw,
          usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 },
          reasks,
        };
      }
      if (reasks >= this.maxReasks)
        throw new ModelBehaviorError(
          `the ${request.schemaName} reply did not match its schema after ${reasks} re-asks`,
          { purpose: request.purpose },
        );
    }
  }

  assertAllUsed(): void {
    if (this.script.length > 0)
      throw new Error(`ScriptedLlm: ${this.script.length} scripted replies were not used`);
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Replies in the shapes of the meta protocol. */
export const reply = {
  plan: (...criteria: string[]): Scripted => ({
    call: 'plan_task',
    reply: {
      type: 'plan_task',
      prd_summary: 'Add a greeting file.',
      acceptance_criteria: criteria.map((description, i) => ({ id: `AC-${i + 1}`, description })),
    },
  }),
  runWorker: (prompt: string, workerType: string, model?: string): Scripted => ({
    call: 'next_action',
    reply: {
      type: 'next_action',
      decision: { action: 'run_worker', reason: 'the work is not done yet' },
      worker_call: { worker_type: workerType, mode: 'exec', prompt, ...(model ? { model } : {}) },
    },
  }),
  markComplete: (): Scripted => ({
    call: 'next_action',
    reply: {
      type: 'next_action',
      decision: { action: 'mark_complete', reason: 'everything is in place' },
      worker_call: null,
    },
  }),
  action: (action: string): Scripted => ({
    call: 'next_action',
    reply: { type: 'next_action', decision: { action, reason: 'why not' } },
  }),
  assess: (satisfied: boolean, passed: string[], risks: string[] = []): Scripted => ({
    call: 'completion_assessment',
    reply: {
      type: 'completion_assessment',
      all_criteria_satisfied: satisfied,
      summary: satisfied ? 'The greeting file exists.' : 'The greeting file is still missing.',
      details: { passed_criteria: passed, remaining_risks: risks },
    },
  }),
};
