import { runCommand } from './command.ts';
import { listFiles, readFileTool, writeFileTool } from './files.ts';
import { applyPatchTool } from './patch.ts';
import type { Tool } from '../core/tool.ts';
import { readRequest } from './request.ts';
import { searchCode } from './search.ts';

export { runToolCall, toolDefinitions } from './registry.ts';
export { repoRoot, resolveInRepo, SandboxViolation } from './sandbox.ts';

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
