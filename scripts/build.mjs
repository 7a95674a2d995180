// Bundles the command into one file (dist/mr-agent.mjs) and the library entry
// (dist/index.mjs, with declarations in dist/types). `--bundle-only` builds the
// command alone (what `npm run demo` needs, in about a second).
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { chmodSync, rmSync } from 'node:fs';

const bundleOnly = process.argv.includes('--bundle-only');
if (!bundleOnly) rmSync('dist', { recursive: true, force: true });

const banner = {
  js: "import { createRequire as __mrAgentCreateRequire } from 'node:module'; const require = __mrAgentCreateRequire(import.meta.url);",
};

await build({
  entryPoints: ['src/cli/bin.ts'],
  outfile: 'dist/mr-agent.mjs',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  banner,
  legalComments: 'none',
  logLevel: 'warning',
});
chmodSync('dist/mr-agent.mjs', 0o755);
if (bundleOnly) process.exit(0);

await build({
  entryPoints: ['src/index.ts'],
  outfile: 'dist/index.mjs',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  packages: 'external',
  logLevel: 'warning',
});

execFileSync('tsc', ['-p', 'tsconfig.build.json'], { stdio: 'inherit' });
