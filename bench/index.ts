// `npm run bench`: runs every bench/*.bench.ts in turn; each prints its own figures.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dir = path.dirname(fileURLToPath(import.meta.url));
for (const file of readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .sort()) {
  process.stdout.write(`\n## ${file}\n`);
  await import(pathToFileURL(path.join(dir, file)).href);
}
