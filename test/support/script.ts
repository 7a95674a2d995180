import type { LlmPurpose, ToolCall } from '../../src/core/llm-port.ts';
import { ScriptedLlm, type ScriptedStep } from '../../src/testkit/scripted-llm.ts';

/** Helpers to script runs with the shipped ScriptedLlm (src/testkit/). */
export type Step = ScriptedStep;

let callIds = 0;

export function toolCall(name: string, args: Record<string, unknown>): ToolCall {
  callIds += 1;
  return { id: `call_${callIds}`, name, arguments: JSON.stringify(args) };
}

/** Steps for one execution turn that calls tools, and for the closing message. */
export const exec = {
  tools: (...toolCalls: ToolCall[]): Step => ({ purpose: 'execution', toolCalls }),
  say: (content: string): Step => ({ purpose: 'execution', content }),
};

export function json(purpose: LlmPurpose, value: unknown): Step {
  return { purpose, json: value };
}

/** Strict order: a call that is not the next scripted step fails the test. */
export function scripted(steps: readonly Step[]): ScriptedLlm {
  return new ScriptedLlm(steps, { ordered: true });
}
