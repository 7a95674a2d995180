// Bundles the command into one file: `dist/mr-agent.mjs` for `npm run build`,
// or any other path (the component tests put it on PATH as `mr-agent`).
import { build } from 'esbuild';
import { chmodSync } from 'node:fs';
import path from 'node:path';

const banner = {
  js: "import { createRequire as __mrAgentCreateRequire } from 'node:module'; const require = __mrAgentCreateRequire(import.meta.url);",
};

export async function bundleCli(outfile = 'dist/mr-agent.mjs') {
  await build({
    entryPoints: [path.resolve(import.meta.dirname, '../src/cli/bin.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    banner,
    legalComments: 'none',
    logLevel: 'warning',
  });
  chmodSync(outfile, 0o755);
  return outfile;
}
