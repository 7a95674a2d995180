import * as z from 'zod';
import type { ToolCall, ToolDefinition } from '../core/llm-port.ts';
import { capText } from './cap.ts';
import type { Tool, ToolContext } from '../core/tool.ts';
import { SandboxViolation } from './sandbox.ts';

/** An expected failure of a tool; its message is shown to the model as is. */
export class ToolError extends Error {
  override readonly name = 'ToolError';
}

/** Builds a tool with its argument type inferred from the zod schema. */
export function defineTool<S extends z.ZodType>(tool: {
  name: string;
  description: string;
  args: S;
  capsOwnOutput?: boolean;
  run(args: z.infer<S>, ctx: ToolContext): Promise<string>;
}): Tool {
  return tool as unknown as Tool;
}

export interface ToolOutcome {
  name: string;
  ok: boolean;
  /** What goes back to the model (capped, redacted). */
  output: string;
  durationMs: number;
}

export function toolDefinitions(tools: readonly Tool[]): ToolDefinition[] {
  return tools.map((tool) => {
    const { $schema: _drop, ...parameters } = z.toJSONSchema(tool.args) as Record<string, unknown>;
    return { name: tool.name, description: tool.description, parameters };
  });
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length ? issue.path.join('.') : '(arguments)'}: ${issue.message}`)
    .join('; ');
}

function parseArguments(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new ToolError(`the arguments are not valid JSON (${(error as Error).message})`);
  }
}

async function invoke(tools: readonly Tool[], call: ToolCall, ctx: ToolContext): Promise<string> {
  const tool = tools.find((t) => t.name === call.name);
  if (!tool) {
    const names = tools.map((t) => t.name).join(', ');
    throw new ToolError(`there is no tool named "${call.name}"; available tools: ${names}`);
  }
  const parsed = tool.args.safeParse(parseArguments(call.arguments));
  if (!parsed.success)
    throw new ToolError(`invalid arguments for ${tool.name}: ${describeIssues(parsed.error)}`);
  return tool.run(parsed.data, ctx);
}

/**
 * Runs one tool call. Every failure becomes text for the model (GUIDE #8):
 * unknown tool, bad JSON, invalid arguments, sandbox refusals and I/O errors.
 */
export async function runToolCall(
  tools: readonly Tool[],
  call: ToolCall,
  ctx: ToolContext,
  now: () => number = Date.now,
): Promise<ToolOutcome> {
  const started = now();
  let ok = true;
  let output: string;
  try {
    output = await invoke(tools, call, ctx);
  } catch (error) {
    ok = false;
    const expected = error instanceof ToolError || error instanceof SandboxViolation;
    const message = error instanceof Error ? error.message : String(error);
    if (!expected) ctx.logger.warn('tool failed unexpectedly', { tool: call.name, error: message });
    output = `Error: ${message}`;
  }
  const durationMs = now() - started;
  ctx.logger.debug('tool call finished', { tool: call.name, ok, outputChars: output.length });
  // capped once: a tool that fits its own output (run_command) is not cut again
  const capped = tools.find((t) => t.name === call.name)?.capsOwnOutput === true;
  const redacted = ctx.redactor.redact(output);
  return {
    name: call.name,
    ok,
    output:
      capped && redacted.length <= ctx.maxOutputChars
        ? redacted
        : capText(redacted, ctx.maxOutputChars),
    durationMs,
  };
}
