// Bundles the command into one file (dist/mr-agent.mjs) and the library entry
// (dist/index.mjs, with declarations in dist/types). `--bundle-only` builds the
// command alone (what `npm run demo` needs, in about a second).
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { bundleCli } from './bundle-cli.mjs';

const bundleOnly = process.argv.includes('--bundle-only');
if (!bundleOnly) rmSync('dist', { recursive: true, force: true });

await bundleCli('dist/mr-agent.mjs');
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
