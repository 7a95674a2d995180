import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** esbuild's metafile: which sources went into each output file. */
export interface Metafile {
  outputs: Record<string, { inputs: Record<string, unknown> }>;
}

/** `node_modules/@scope/name/...` → `@scope/name`; `node_modules/name/...` → `name`; sources as they are. */
export function packageOf(input: string): string {
  const at = input.lastIndexOf('node_modules/');
  if (at < 0) return input;
  const parts = input.slice(at + 'node_modules/'.length).split('/');
  return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

/**
 * The sources (repository-relative, node_modules by package) inside the
 * bundle's output files among `urls` (module URLs as a load hook saw them).
 */
export function sourcesIn(meta: Metafile, urls: readonly string[]): string[] {
  const files = urls.filter((url) => url.startsWith('file:')).map((url) => fileURLToPath(url));
  const sources = new Set<string>();
  for (const [output, { inputs }] of Object.entries(meta.outputs)) {
    if (!files.includes(path.resolve(output))) continue;
    for (const input of Object.keys(inputs)) sources.add(packageOf(input));
  }
  return [...sources].sort();
}
