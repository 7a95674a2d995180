import { runCommand } from './command.ts';
import { listFiles, readFileTool, writeFileTool } from './files.ts';
import { applyPatchTool } from './patch.ts';
import type { Tool } from './registry.ts';
import { readRequest } from './request.ts';
import { searchCode } from './search.ts';

export { runToolCall, toolDefinitions, type Tool, type ToolContext } from './registry.ts';
export { repoRoot, resolveInRepo, SandboxViolation, type RepoRoot } from './sandbox.ts';

/** The execution tools, by their contract names (SPEC contracts). */
export function builtinTools(): Tool[] {
  return [
    listFiles,
    readFileTool,
    searchCode,
    writeFileTool,
    applyPatchTool,
    runCommand,
    readRequest,
  ];
}
