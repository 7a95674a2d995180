import type { ToolCall } from '../../core/llm-port.ts';

function parse(call: ToolCall): Record<string, unknown> {
  try {
    const value = JSON.parse(call.arguments) as unknown;
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Files named in a patch's `+++`/`---` lines (repository-relative). */
function patchFiles(patch: string): string[] {
  const files = new Set<string>();
  for (const line of patch.split('\n')) {
    const match = /^(?:\+\+\+|---) (?:[ab]\/)?(\S+)/.exec(line);
    if (match && match[1] !== '/dev/null') files.add(match[1]!);
  }
  return [...files];
}

/** A short form of a tool call's arguments for notes and logs. */
export function briefArguments(call: ToolCall): string {
  const args = parse(call);
  if (typeof args.command === 'string') return args.command.slice(0, 160);
  if (typeof args.patch === 'string') return patchFiles(args.patch).join(', ');
  if (typeof args.query === 'string') return JSON.stringify(args.query).slice(0, 160);
  if (typeof args.path === 'string') return args.path;
  return '';
}

/** Files a successful write_file or apply_patch call changed. */
export function changedPaths(call: ToolCall): string[] {
  const args = parse(call);
  if (call.name === 'write_file' && typeof args.path === 'string') return [args.path];
  if (call.name === 'apply_patch' && typeof args.patch === 'string') return patchFiles(args.patch);
  return [];
}
