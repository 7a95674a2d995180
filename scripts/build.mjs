// Bundles the command into one file (dist/mr-agent.mjs) and the library entry
// (dist/index.mjs, with declarations in dist/types).
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { bundleCli } from './bundle-cli.mjs';

rmSync('dist', { recursive: true, force: true });

await bundleCli('dist/mr-agent.mjs');

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
