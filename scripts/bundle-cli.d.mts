/**
 * Bundles src/cli/bin.ts into an executable ESM entry, src/index.ts into
 * `index.mjs` beside it, and what both load into their chunks/ folder;
 * resolves to the command entry's path. With `metafile`, writes esbuild's metafile to
 * `<outfile>.meta.json`.
 */
export function bundleCli(outfile?: string, options?: { metafile?: boolean }): Promise<string>;
/** The folder of chunks that goes with the entry `outfile`. */
export function chunksDir(outfile?: string): string;
