/**
 * The demo's bundled files (`demo/` in the package): the sample repository
 * and the scripted model's scenario. Found by walking up from this module,
 * so they are found from `src/demo/` and from the bundle in `dist/`.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const SAMPLE_REPO = 'sample-repo';
export const LLM_SCENARIO = 'llm-scenario.yaml';

/** The package's `demo/` folder. */
export function demoAssetsDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let up = 0; up < 5; up++) {
    const candidate = path.join(dir, 'demo');
    if (existsSync(path.join(candidate, LLM_SCENARIO))) return candidate;
    dir = path.dirname(dir);
  }
  throw new Error('internal: the demo folder is missing from the installation');
}

/** Every file of a folder, as repository-relative path → text (sorted). */
export async function readTree(root: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  const visit = async (rel: string): Promise<void> => {
    const entries = await readdir(path.join(root, rel), { withFileTypes: true });
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) await visit(child);
      else if (entry.isFile()) files[child] = await readFile(path.join(root, child), 'utf8');
    }
  };
  await visit('');
  return files;
}

export interface DemoAssets {
  dir: string;
  /** The sample repository as the merge request's branch has it. */
  sampleRepo: Record<string, string>;
  /** The scripted model's scenario (YAML text). */
  llmScenario: string;
}

export async function loadDemoAssets(dir = demoAssetsDir()): Promise<DemoAssets> {
  return {
    dir,
    sampleRepo: await readTree(path.join(dir, SAMPLE_REPO)),
    llmScenario: await readFile(path.join(dir, LLM_SCENARIO), 'utf8'),
  };
}
