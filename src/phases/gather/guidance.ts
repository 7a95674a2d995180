import { readFile, stat } from 'node:fs/promises';
import { resolveInRepo } from '../../tools/sandbox.ts';
import type { RepoRoot } from '../../core/tool.ts';
import type { GuidanceFile } from '../../core/gathered.ts';

/** Repository guidance files given to the planner as project conventions. */
export const GUIDANCE_FILES = [
  'AGENTS.md',
  'CLAUDE.md',
  'CONTRIBUTING.md',
  '.mr-agent/instructions.md',
] as const;

export const GUIDANCE_MAX_CHARS = 8000;

/** Reads the guidance files that exist, through the path sandbox, each capped. */
export async function readGuidance(root: RepoRoot): Promise<GuidanceFile[]> {
  const found: GuidanceFile[] = [];
  for (const name of GUIDANCE_FILES) {
    let file: string;
    try {
      file = await resolveInRepo(root, name);
    } catch {
      continue; // e.g. a symbolic link out of the repository
    }
    const isFile = await stat(file).then(
      (s) => s.isFile(),
      () => false,
    );
    if (!isFile) continue;
    const text = await readFile(file, 'utf8');
    found.push({
      path: name,
      content: text.slice(0, GUIDANCE_MAX_CHARS),
      truncated: text.length > GUIDANCE_MAX_CHARS,
    });
  }
  return found;
}
