/**
 * The parts of the component template (templates/agent.yml) and of the release
 * pipeline (.gitlab-ci.yml) that exist once per environment, written from the
 * environment registry: the `environment` input's options, an image input and
 * its `MR_AGENT_IMAGE_<NAME>` variable, the hidden job with the image and the
 * dependency caches, the two-step flow's hidden job, and the image the release
 * builds. `npm run docs` (scripts/update-docs.ts) writes them between
 * `# generated:<part>` and `# /generated:<part>` lines; test/ci/generated-environments.test.ts
 * fails when they are stale, so a new environment needs no YAML edited by hand.
 */
import { stringify } from 'yaml';
import type { EnvironmentKind } from '../phases/environment/kinds/kind.ts';
import { ENVIRONMENT_KINDS } from '../phases/environment/registry.ts';
import { environmentJob } from './environments.ts';

/** One YAML scalar on one line, quoted only when it must be. */
function scalar(value: string): string {
  return stringify(value, { lineWidth: 0, singleQuote: true }).trimEnd();
}

const job = (name: string) => `'.$[[ inputs.as ]]:${name}'`;

function imageInput(kind: EnvironmentKind): string[] {
  return [
    `    image_${kind.name}:`,
    '      type: string',
    `      default: $MR_AGENT_IMAGE_REGISTRY/${kind.name}:$MR_AGENT_IMAGE_TAG`,
    `      description: ${scalar(kind.job.imageDescription ?? `Image for the \`${kind.name}\` environment.`)}`,
  ];
}

function environmentJobLines(kind: EnvironmentKind): string[] {
  const { variables, cachePaths } = environmentJob(kind);
  return [
    `${job(`env:${kind.name}`)}:`,
    `  image: $[[ inputs.image_${kind.name} ]]`,
    '  variables:',
    ...Object.entries(variables).map(([name, value]) => `    ${name}: ${scalar(value)}`),
    '  cache:',
    `    key: $[[ inputs.cache_key ]]-${kind.name}`,
    '    when: always',
    `    paths: [${cachePaths.join(', ')}]`,
  ];
}

/** The generated parts of templates/agent.yml, by name. */
export function templateEnvironmentParts(
  kinds: readonly EnvironmentKind[] = ENVIRONMENT_KINDS,
): Record<string, string[]> {
  const [first, ...rest] = kinds;
  return {
    'environment-options': [`      options: [auto, ${kinds.map((k) => k.name).join(', ')}]`],
    'image-inputs': kinds.flatMap(imageInput),
    'image-variables': kinds.map(
      (k) => `    MR_AGENT_IMAGE_${k.name.toUpperCase()}: $[[ inputs.image_${k.name} ]]`,
    ),
    'environment-jobs': kinds.flatMap((k, i) => [
      ...(i > 0 ? [''] : []),
      ...environmentJobLines(k),
    ]),
    'two-step-jobs': first
      ? [
          `${job(`two-step:${first.name}`)}: &fixed`,
          '  rules:',
          '    - when: never',
          ...rest.map((k) => `${job(`two-step:${k.name}`)}: *fixed`),
        ]
      : [],
  };
}

/** The generated part of .gitlab-ci.yml: every environment's runner image and the bridge's. */
export function releaseEnvironmentParts(
  kinds: readonly EnvironmentKind[] = ENVIRONMENT_KINDS,
): Record<string, string[]> {
  return { images: [`      - IMAGE: [${[...kinds.map((k) => k.name), 'bridge'].join(', ')}]`] };
}

/**
 * Replaces the lines between each `# generated:<name>` line and its
 * `# /generated:<name>` line by the part of that name; a part without its
 * two lines is an error, so a template that lost one is not silently stale.
 */
export function replaceGeneratedParts(
  text: string,
  parts: Record<string, readonly string[]>,
  file: string,
): string {
  const lines = text.split('\n');
  for (const [name, body] of Object.entries(parts)) {
    const start = lines.findIndex((l) => l.trim().startsWith(`# generated:${name} `));
    const end = lines.findIndex((l) => l.trim() === `# /generated:${name}`);
    if (start === -1 || end < start)
      throw new Error(
        `${file}: expected the lines '# generated:${name} …' and '# /generated:${name}' around the generated part '${name}'`,
      );
    lines.splice(start + 1, end - start - 1, ...body);
  }
  return lines.join('\n');
}
