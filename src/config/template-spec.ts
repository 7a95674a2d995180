import { isMap, isScalar, parseAllDocuments, type YAMLMap } from 'yaml';
import * as z from 'zod';

/**
 * Reads a component template (`templates/<name>.yml`): its `spec: inputs:`
 * header, grouped by the comment lines above them, and the job document.
 * The README's inputs table and the template tests are built from this.
 */
export const TemplateInput = z.strictObject({
  type: z.enum(['string', 'number', 'boolean', 'array']),
  default: z.unknown(),
  description: z.string().min(1),
  options: z.array(z.unknown()).optional(),
  regex: z.string().optional(),
});
export type TemplateInput = z.infer<typeof TemplateInput>;

export interface NamedInput extends TemplateInput {
  name: string;
  /** The comment heading the input's group (`# Job` → "Job"). */
  group: string;
}

export interface ComponentTemplate {
  inputs: NamedInput[];
  /** The second YAML document: the jobs. */
  jobs: Record<string, unknown>;
}

/** The comment lines around a generated part (`generated:<part> …`, `/generated:<part>`) head no group. */
const GENERATED_MARK = /^\/?generated:/;

function groupComment(comment: string | null | undefined): string | undefined {
  const line = comment
    ?.split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !GENERATED_MARK.test(l))
    .at(-1);
  return line || undefined;
}

function inputsNode(text: string, where: string): { map: YAMLMap; jobs: unknown } {
  const docs = parseAllDocuments(text);
  if (!Array.isArray(docs) || docs.length !== 2) {
    throw new Error(`${where}: expected a spec header and a job document separated by ---`);
  }
  for (const doc of docs) {
    if (doc.errors.length > 0) throw new Error(`${where}: ${doc.errors[0]!.message}`);
  }
  const map = docs[0]!.getIn(['spec', 'inputs'], true);
  if (!isMap(map)) throw new Error(`${where}: spec.inputs is not a mapping`);
  return { map, jobs: docs[1]!.toJS() };
}

/** Parses a template; throws naming the input that lacks a type, default or description. */
export function parseComponentTemplate(text: string, where = 'template'): ComponentTemplate {
  const { map, jobs } = inputsNode(text, where);
  const inputs: NamedInput[] = [];
  let group = groupComment(map.commentBefore) ?? '';
  for (const pair of map.items) {
    const name = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
    group = (isScalar(pair.key) && groupComment(pair.key.commentBefore)) || group;
    const parsed = TemplateInput.safeParse((pair.value as { toJSON(): unknown }).toJSON());
    if (!parsed.success) {
      const problem = parsed.error.issues[0]!;
      throw new Error(
        `${where}: input ${name}: ${problem.path.join('.') || '(input)'}: ${problem.message}`,
      );
    }
    inputs.push({ ...parsed.data, name, group });
  }
  return { inputs, jobs: (jobs ?? {}) as Record<string, unknown> };
}

function code(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text === '' ? "`''` (empty)" : `\`${text.replace(/\|/g, '\\|')}\``;
}

function describe(input: NamedInput): string {
  const options = input.options ? ` One of ${input.options.map((o) => code(o)).join(', ')}.` : '';
  const regex = input.regex ? ` Must match \`${input.regex}\`.` : '';
  return `${input.description}${options}${regex}`.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** The inputs table GitLab recommends for a component README: name, type, default, description. */
export function renderInputsTable(templateName: string, template: ComponentTemplate): string {
  const lines = [
    `Inputs of \`${templateName}\` (generated from \`templates/${templateName}.yml\`):`,
    '',
    '| Input | Type | Default | Description |',
    '|---|---|---|---|',
  ];
  let group = '';
  for (const input of template.inputs) {
    if (input.group && input.group !== group) {
      group = input.group;
      lines.push(`| **${group}** | | | |`);
    }
    lines.push(
      `| \`${input.name}\` | ${input.type} | ${code(input.default)} | ${describe(input)} |`,
    );
  }
  return lines.join('\n');
}
