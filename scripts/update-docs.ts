// Regenerates the generated parts of README.md (between marker comments).
// `npm run docs` writes them; test/docs/readme.test.ts fails when they are stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { renderReadmeSections, replaceSections } from '../src/config/readme-sections.ts';

const readme = readFileSync('README.md', 'utf8');
const updated = replaceSections(readme, renderReadmeSections());
if (updated !== readme) {
  writeFileSync('README.md', updated);
  console.log('README.md updated');
} else {
  console.log('README.md is up to date');
}
