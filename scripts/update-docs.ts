// Regenerates the generated parts of templates/agent.yml and .gitlab-ci.yml
// (one per environment, from the registry), of README.md (between marker
// comments; its inputs table is read from the template, so after it) and
// docs/result.schema.json. `npm run docs` writes them; test/docs/ and
// test/ci/generated-environments.test.ts fail when they are stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { format, resolveConfig } from 'prettier';
import {
  releaseEnvironmentParts,
  replaceGeneratedParts,
  templateEnvironmentParts,
} from '../src/ci/generated-environments.ts';
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

for (const [file, parts] of [
  ['templates/agent.yml', templateEnvironmentParts()],
  ['.gitlab-ci.yml', releaseEnvironmentParts()],
] as const) {
  const text = readFileSync(file, 'utf8');
  update(file, replaceGeneratedParts(text, parts, file), text);
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
