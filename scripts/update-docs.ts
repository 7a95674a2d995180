// Regenerates the generated parts of README.md (between marker comments) and
// docs/result.schema.json. `npm run docs` writes them; test/docs/ fails when
// they are stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { format, resolveConfig } from 'prettier';
import { renderReadmeSections, replaceSections } from '../src/config/readme-sections.ts';
import { resultJsonSchema } from '../src/report/result-file.ts';

function update(file: string, updated: string, current: string): void {
  if (updated !== current) {
    writeFileSync(file, updated);
    console.log(`${file} updated`);
  } else {
    console.log(`${file} is up to date`);
  }
}

const readme = readFileSync('README.md', 'utf8');
update('README.md', replaceSections(readme, renderReadmeSections()), readme);

const SCHEMA = 'docs/result.schema.json';
let schema = '';
try {
  schema = readFileSync(SCHEMA, 'utf8');
} catch {
  // written below
}
update(
  SCHEMA,
  await format(JSON.stringify(resultJsonSchema()), {
    ...(await resolveConfig(SCHEMA)),
    parser: 'json',
  }),
  schema,
);
