import type * as z from 'zod';
import type { LlmRole } from '../config/options.ts';
import { CancelledError } from '../errors/errors.ts';
import type { LlmPort, LlmPurpose } from '../core/llm-port.ts';
import type { Logger } from '../log/logger.ts';
import type { Redactor } from '../log/redact.ts';
import type { Clock } from '../core/clock.ts';
import type { MetaCallType, TaskContext } from './context.ts';
import { renderPrompt } from '../core/prompts.ts';
import type { MetaPrompts } from './prompts.ts';
import { CompletionAssessmentReply, NextActionReply, PlanTaskReply } from './protocol.ts';

interface CallKind<T> {
  prompt: keyof MetaPrompts;
  purpose: LlmPurpose;
  role: LlmRole;
  schema: z.ZodType<T>;
}

const CALLS = {
  plan_task: { prompt: 'planTask', purpose: 'planning', role: 'planning', schema: PlanTaskReply },
  next_action: {
    prompt: 'nextAction',
    purpose: 'execution',
    role: 'execution',
    schema: NextActionReply,
  },
  completion_assessment: {
    prompt: 'completionAssessment',
    purpose: 'completion',
    role: 'reflection',
    schema: CompletionAssessmentReply,
  },
} as const satisfies Record<MetaCallType, CallKind<unknown>>;

type ReplyOf<K extends MetaCallType> = z.infer<(typeof CALLS)[K]['schema']>;

export interface MetaClientDeps {
  llm: LlmPort;
  clock: Clock;
  logger: Logger;
  redactor: Redactor;
  prompts: MetaPrompts;
  signal?: AbortSignal;
}

/**
 * The meta-agent (docs/agent-runner.md): one JSON call per protocol step
 * through `LlmPort.json`, which validates the reply with the zod schema and
 * re-asks on failure. Every call, failed or not, is logged in the context
 * for the Task Note.
 */
export class MetaClient {
  constructor(private readonly deps: MetaClientDeps) {}

  async call<K extends MetaCallType>(
    context: TaskContext,
    type: K,
    request: object,
  ): Promise<ReplyOf<K>> {
    if (this.deps.signal?.aborted) throw new CancelledError('the run was cancelled');
    const kind = CALLS[type] as unknown as CallKind<ReplyOf<K>>;
    const safeRequest = this.deps.redactor.redactValue(request);
    const user = renderPrompt(this.deps.prompts[kind.prompt], {
      request: JSON.stringify(safeRequest, null, 2),
    });
    const started = this.deps.clock.now();
    const log = this.deps.logger;
    log.info('LLM call started', {
      component: 'meta',
      call: type,
      purpose: kind.purpose,
      requestSize: user.length,
    });
    log.debug('LLM request', {
      component: 'meta',
      call: type,
      system: this.deps.prompts.system,
      user,
    });
    const entry = {
      type,
      timestamp: new Date(started).toISOString(),
      request: safeRequest,
      reasks: 0,
      durationMs: 0,
    };
    context.metaCalls.push(entry);
    try {
      const reply = await this.deps.llm.json({
        purpose: kind.purpose,
        role: kind.role,
        schemaName: type,
        schema: kind.schema,
        messages: [
          { role: 'system', content: this.deps.prompts.system },
          { role: 'user', content: user },
        ],
        ...(this.deps.signal ? { signal: this.deps.signal } : {}),
      });
      Object.assign(entry, {
        response: reply.value,
        reasks: reply.reasks,
        durationMs: this.deps.clock.now() - started,
      });
      log.info('LLM call finished', {
        component: 'meta',
        call: type,
        responseSize: reply.raw.length,
        reasks: reply.reasks,
        durationMs: entry.durationMs,
      });
      log.debug('LLM response', { component: 'meta', call: type, response: reply.raw });
      return reply.value;
    } catch (error) {
      Object.assign(entry, {
        error: error instanceof Error ? error.message : String(error),
        durationMs: this.deps.clock.now() - started,
      });
      throw error;
    }
  }
}
