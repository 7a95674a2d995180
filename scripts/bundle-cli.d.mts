/** Bundles src/cli/bin.ts into one executable ESM file; resolves to its path. */
export function bundleCli(outfile?: string): Promise<string>;
