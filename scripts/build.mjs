// Bundles the command (dist/mr-agent.mjs) and the library entry (dist/index.mjs),
// which share dist/chunks/, and writes the library's declarations to dist/types.
// `--bundle-only` leaves the declarations out (what `npm run demo` needs, in
// about a second); `npm pack` runs the whole build (`prepack`).
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { bundleCli } from './bundle-cli.mjs';

const bundleOnly = process.argv.includes('--bundle-only');
if (!bundleOnly) rmSync('dist', { recursive: true, force: true });

await bundleCli('dist/mr-agent.mjs');
if (bundleOnly) process.exit(0);

execFileSync('tsc', ['-p', 'tsconfig.build.json'], { stdio: 'inherit' });
