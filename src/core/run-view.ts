import type { RunContext } from './run-context.ts';
import type { RunView } from './hooks.ts';

const REQUEST_CHARS = 6000;

/** What the replan hook sees of the run besides the checkpoint. */
export function runView(ctx: RunContext): RunView {
  const request = ctx.state.gathered?.request;
  const text = request
    ? `${request.title}\n\n${request.body}`.slice(0, REQUEST_CHARS)
    : `${ctx.task.title}\n\n${ctx.task.description}`.slice(0, REQUEST_CHARS);
  return {
    request: text,
    tools: ctx.tools.map((t) => t.name),
    actions: ctx.state.actions,
    changedFiles: [...ctx.state.changedFiles],
    llm: ctx.llm,
  };
}
