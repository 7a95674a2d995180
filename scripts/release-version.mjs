// The release number lives in package.json; the component's `image_tag` default
// (templates/agent.yml) must name the same release, so `agent@X.Y.Z` runs the
// X.Y.Z runner images.
//   node scripts/release-version.mjs --write        set image_tag to package.json's version
//                                                   (npm's `version` script runs it)
//   node scripts/release-version.mjs --check <tag>  fail unless tag = version = image_tag
import { readFileSync, writeFileSync } from 'node:fs';

const TEMPLATE = 'templates/agent.yml';
const IMAGE_TAG = /(\n {4}image_tag:\n(?: {6}.*\n)*? {6}default: )(\S+)\n/;

const version = JSON.parse(readFileSync('package.json', 'utf8')).version;
const template = readFileSync(TEMPLATE, 'utf8');
const match = IMAGE_TAG.exec(template);
if (!match) {
  console.error(`${TEMPLATE}: no \`image_tag\` input with a default`);
  process.exit(1);
}

const [mode, tag] = process.argv.slice(2);
if (mode === '--write') {
  writeFileSync(TEMPLATE, template.replace(IMAGE_TAG, `$1${version}\n`));
  console.log(`${TEMPLATE}: image_tag defaults to ${version}`);
} else if (mode === '--check') {
  const problems = [];
  if (tag !== version) problems.push(`tag ${tag} is not package.json's version ${version}`);
  if (match[2] !== version)
    problems.push(`${TEMPLATE}: image_tag defaults to ${match[2]}, not ${version}`);
  for (const problem of problems) console.error(problem);
  if (problems.length > 0) process.exit(1);
  console.log(`release ${version}: package.json, tag and image_tag agree`);
} else {
  console.error('usage: node scripts/release-version.mjs --write | --check <tag>');
  process.exit(2);
}
