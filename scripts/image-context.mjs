// Prepares the build context of the runner images (images/<env>/Dockerfile):
// package.json plus every entry of its "files" list that exists (dist/, prompts/,
// templates/). Run after `npm run build`: `node scripts/image-context.mjs <dir>`.
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

const target = process.argv[2] ?? 'image-context';
const pkg = JSON.parse(readFileSync('package.json', 'utf8'));

if (!existsSync('dist/mr-agent.mjs')) {
  console.error('dist/mr-agent.mjs is missing: run `npm run build` first');
  process.exit(1);
}
rmSync(target, { recursive: true, force: true });
mkdirSync(target, { recursive: true });
for (const entry of ['package.json', 'LICENSE', 'README.md', ...pkg.files]) {
  if (existsSync(entry)) cpSync(entry, path.join(target, entry), { recursive: true });
}
console.log(`image build context ready in ${target}`);
