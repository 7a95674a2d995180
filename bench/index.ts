// `npm run bench`: runs every bench/*.bench.ts in turn (each in its own
// process, through tsx) and prints its output. Exits non-zero if one fails.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const benches = readdirSync(here)
  .filter((name) => name.endsWith('.bench.ts'))
  .sort();

let failed = 0;
for (const name of benches) {
  console.log(`\n=== ${name} ===`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', join(here, name)], {
    stdio: 'inherit',
  });
  if (result.status !== 0) {
    failed++;
    console.log(`${name} failed (exit ${result.status ?? result.signal})`);
  }
}
console.log(`\n${benches.length} bench file(s) run, ${failed} failed`);
process.exitCode = failed > 0 ? 1 : 0;
