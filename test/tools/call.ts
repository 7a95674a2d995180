import { builtinTools } from '../../src/tools/index.ts';
import { runToolCall, type ToolOutcome } from '../../src/tools/registry.ts';
import type { ToolContext } from '../../src/core/tool.ts';

let counter = 0;

/** Runs one tool call the way the execute phase does (JSON text arguments). */
export function call(ctx: ToolContext, name: string, args: unknown): Promise<ToolOutcome> {
  counter += 1;
  return runToolCall(
    builtinTools(),
    {
      id: `call_${counter}`,
      name,
      arguments: typeof args === 'string' ? args : JSON.stringify(args),
    },
    ctx,
  );
}
