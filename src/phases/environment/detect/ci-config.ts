import {
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  parseDocument,
  type Document,
  type Node,
  type YAMLMap,
} from 'yaml';
import type { EnvironmentName, VersionPin } from '../../../core/environment.ts';
import { SECONDARY, type Collector } from './evidence-types.ts';

/**
 * CI configuration as evidence: GitHub Actions workflows, GitLab CI, CircleCI
 * and Travis. Commands come with their file and line; runtime set-up steps
 * (`actions/setup-python` …, job images, Travis `python:`) give the
 * environment and the versions CI runs.
 */

type Language = VersionPin['language'];

/** What CI configuration says about each environment: its set-up actions, job images and Travis key. */
export interface CiVocabulary {
  setupActions: readonly {
    uses: RegExp;
    language: Language;
    environment: EnvironmentName;
    /** The `with:` keys that name the version, first found wins. */
    versionKeys: readonly string[];
    /** The `with:` keys that name a file the step reads (an environment file). */
    fileKeys?: readonly string[];
  }[];
  images: readonly {
    environment: EnvironmentName;
    /** The image's language and version, given its repository's last segment and its tag. */
    match: (repo: string, tag: string) => { language: Language; version?: string } | undefined;
  }[];
  travis: readonly { key: string; language: Language; environment: EnvironmentName }[];
}

interface Yaml {
  vocabulary: CiVocabulary;
  doc: Document;
  file: string;
  lines: string[];
  counter: LineCounter;
  collect: Collector;
}

const lineOf = (y: Yaml, node: Node | null | undefined) =>
  node?.range ? y.counter.linePos(node.range[0]).line : 0;

function child(map: unknown, key: string): Node | undefined {
  return isMap(map) ? ((map as YAMLMap).get(key, true) as Node | undefined) : undefined;
}

const text = (node: unknown): string | undefined =>
  isScalar(node) && node.value !== null && node.value !== undefined
    ? String(node.value)
    : undefined;

/** The script lines of a `run:`/`script:` value (a string or a list, nested lists flattened). */
function scriptLines(y: Yaml, node: unknown, out: { text: string; line: number }[] = []) {
  if (isSeq(node)) {
    for (const item of node.items) scriptLines(y, item, out);
    return out;
  }
  if (isMap(node)) return scriptLines(y, child(node, 'command'), out); // CircleCI `run: {command}`
  const value = text(node);
  if (value === undefined) return out;
  const start = lineOf(y, node as Node);
  let cursor = start;
  for (const raw of value.replace(/\\\r?\n\s*/g, ' ').split(/\r?\n/)) {
    const trimmed = raw.trim();
    if (!trimmed || trimmed.startsWith('#')) continue;
    cursor = findLine(y.lines, trimmed, cursor);
    out.push({ text: trimmed, line: cursor });
  }
  return out;
}

/** The 1-based line at or after `from` (within a short window) that holds the start of `needle`, else `from`. */
function findLine(lines: string[], needle: string, from: number): number {
  const probe = needle.slice(0, 40);
  const start = Math.max(from - 1, 0);
  for (let i = start; i < Math.min(lines.length, start + 200); i += 1) {
    if (lines[i]!.includes(probe)) return i + 1;
  }
  return from;
}

/** `${{ matrix.python }}` → the matrix's values for `python` (include entries too). */
function expand(value: string, matrix: Record<string, unknown>): string[] {
  const ref = /^EXPR\(matrix\.([\w-]+)\)$|^\$\{\{\s*matrix\.([\w-]+)\s*\}\}$/.exec(value.trim());
  if (!ref) return /\$\{\{/.test(value) ? [] : [value];
  const key = (ref[1] ?? ref[2])!;
  const listed = Array.isArray(matrix[key]) ? (matrix[key] as unknown[]) : [];
  const included = Array.isArray(matrix.include)
    ? (matrix.include as Record<string, unknown>[]).map((i) => i?.[key])
    : [];
  return [...listed, ...included]
    .filter((v) => typeof v === 'string' || typeof v === 'number')
    .map(String);
}

function versionsOf(node: unknown, matrix: Record<string, unknown>): string[] {
  if (isSeq(node)) return node.items.flatMap((i) => versionsOf(i, matrix));
  const value = text(node);
  if (value === undefined) return [];
  return value.split(/\r?\n/).flatMap((v) => (v.trim() ? expand(v.trim(), matrix) : []));
}

/** A job's `strategy.matrix` as plain data; an alias bomb is a problem noted, and no matrix. */
function matrixOf(y: Yaml, node: unknown): Record<string, unknown> {
  if (!isMap(node)) return {};
  try {
    return node.toJS(y.doc, { maxAliasCount: 100 }) as Record<string, unknown>;
  } catch (error) {
    y.collect.problem(`${y.file}: a matrix is not usable (${(error as Error).message})`);
    return {};
  }
}

function githubWorkflow(y: Yaml, root: unknown): void {
  const jobs = child(root, 'jobs');
  if (!isMap(jobs)) return;
  const workflowSecondary = SECONDARY.test(y.file.slice(y.file.lastIndexOf('/') + 1));
  for (const pair of jobs.items) {
    const id = text(pair.key) ?? '';
    const job = pair.value;
    const name = text(child(job, 'name')) ?? id;
    const jobSecondary = workflowSecondary || SECONDARY.test(id) || SECONDARY.test(name);
    const matrixNode = child(child(job, 'strategy'), 'matrix');
    const matrix = matrixOf(y, matrixNode);
    const steps = child(job, 'steps');
    if (!isSeq(steps)) continue;
    for (const step of steps.items) {
      const stepName = text(child(step, 'name')) ?? '';
      const secondary = jobSecondary || SECONDARY.test(stepName);
      const context = `job ${name}`;
      const uses = text(child(step, 'uses'));
      const action = uses && y.vocabulary.setupActions.find((a) => a.uses.test(uses));
      if (action) {
        const { language, environment, versionKeys: keys } = action;
        const withNode = child(step, 'with');
        const versionNode = keys.map((k) => child(withNode, k)).find(Boolean);
        const files = (action.fileKeys ?? [])
          .map((k) => text(child(withNode, k)))
          .filter((f): f is string => Boolean(f) && !f!.includes('${{'));
        y.collect.runtime({
          file: y.file,
          line: lineOf(y, (versionNode ?? child(step, 'uses')) as Node),
          text: `${uses}${versionNode ? ` ${keys[0]}: ${text(versionNode) ?? '[…]'}` : ''}`,
          language,
          environment,
          versions: versionsOf(versionNode, matrix),
          ...(files.length > 0 ? { files } : {}),
          source: 'ci',
          secondary,
        });
      }
      for (const line of scriptLines(y, child(step, 'run')))
        y.collect.script({ file: y.file, ...line, context, secondary }, 'ci');
    }
  }
}

const GITLAB_RESERVED = new Set([
  'stages',
  'variables',
  'include',
  'workflow',
  'cache',
  'services',
  'image',
  'before_script',
  'after_script',
  'default',
  'spec',
]);

/** The version at the start of an image tag (`3.11-slim` → `3.11`, `v1.22` → `1.22`). */
export const tagVersion = (tag: string) => /^v?(\d+(?:\.\d+)*)/.exec(tag)?.[1];

/** `python:3.11-slim`, `maven:3.9-eclipse-temurin-17`, `cimg/go:1.22`, `condaforge/miniforge3` → runtime. */
export function imageRuntime(
  image: string,
  images: CiVocabulary['images'],
): { language: Language; environment: EnvironmentName; version?: string } | undefined {
  const lastSlash = image.lastIndexOf('/');
  const [repo = '', tag = ''] = image.slice(lastSlash + 1).split(':');
  for (const { environment, match } of images) {
    const found = match(repo, tag);
    if (found) return { ...found, environment };
  }
  return undefined;
}

function gitlabImage(y: Yaml, node: unknown, secondary: boolean): void {
  const valueNode = isMap(node) ? child(node, 'name') : node;
  const image = text(valueNode);
  const runtime = image && imageRuntime(image, y.vocabulary.images);
  if (!runtime) return;
  y.collect.runtime({
    file: y.file,
    line: lineOf(y, valueNode as Node),
    text: `image: ${image}`,
    language: runtime.language,
    environment: runtime.environment,
    versions: runtime.version ? [runtime.version] : [],
    source: 'ci',
    secondary,
  });
}

function gitlabCi(y: Yaml, root: unknown): void {
  if (!isMap(root)) return;
  const defaults = child(root, 'default');
  gitlabImage(y, child(root, 'image') ?? child(defaults, 'image'), false);
  for (const key of ['before_script'])
    for (const line of scriptLines(y, child(root, key) ?? child(defaults, key)))
      y.collect.script({ file: y.file, ...line, context: 'default', secondary: false }, 'ci');
  for (const pair of root.items) {
    const name = text(pair.key) ?? '';
    if (GITLAB_RESERVED.has(name) || !isMap(pair.value)) continue;
    const job = pair.value;
    const stage = text(child(job, 'stage')) ?? '';
    const secondary = SECONDARY.test(name) || SECONDARY.test(stage);
    gitlabImage(y, child(job, 'image'), secondary);
    for (const key of ['before_script', 'script'])
      for (const line of scriptLines(y, child(job, key)))
        y.collect.script({ file: y.file, ...line, context: `job ${name}`, secondary }, 'ci');
  }
}

function circleCi(y: Yaml, root: unknown): void {
  const jobs = child(root, 'jobs');
  if (!isMap(jobs)) return;
  for (const pair of jobs.items) {
    const name = text(pair.key) ?? '';
    const secondary = SECONDARY.test(name);
    const docker = child(pair.value, 'docker');
    if (isSeq(docker) && docker.items[0])
      gitlabImage(y, child(docker.items[0], 'image'), secondary);
    const steps = child(pair.value, 'steps');
    if (!isSeq(steps)) continue;
    for (const step of steps.items)
      for (const line of scriptLines(y, child(step, 'run')))
        y.collect.script({ file: y.file, ...line, context: `job ${name}`, secondary }, 'ci');
  }
}

function travis(y: Yaml, root: unknown): void {
  for (const { key, language, environment } of y.vocabulary.travis) {
    const node = child(root, key);
    if (!node) continue;
    y.collect.runtime({
      file: y.file,
      line: lineOf(y, node),
      text: `${key}: ${versionsOf(node, {}).join(', ')}`,
      language,
      environment,
      versions: versionsOf(node, {}),
      source: 'ci',
      secondary: false,
    });
  }
  for (const key of ['before_install', 'install', 'before_script', 'script'])
    for (const line of scriptLines(y, child(root, key)))
      y.collect.script({ file: y.file, ...line, context: key, secondary: false }, 'ci');
}

/** Reads one CI YAML file; a broken one is a problem noted, never a crash. */
export function readCiYaml(
  file: string,
  source: string,
  collect: Collector,
  vocabulary: CiVocabulary,
): void {
  const counter = new LineCounter();
  let doc: ReturnType<typeof parseDocument>;
  try {
    // failsafe: every scalar stays a string (`python-version: 3.10` is not the number 3.1)
    doc = parseDocument(source, {
      lineCounter: counter,
      uniqueKeys: false,
      schema: 'failsafe',
      logLevel: 'silent',
    });
  } catch {
    collect.problem(`${file} could not be read as YAML`);
    return;
  }
  if (doc.errors.length > 0) {
    collect.problem(`${file} is not valid YAML (${doc.errors[0]!.message.split('\n')[0]})`);
    return;
  }
  const y: Yaml = { vocabulary, doc, file, lines: source.split(/\r?\n/), counter, collect };
  if (file.startsWith('.github/workflows/')) githubWorkflow(y, doc.contents);
  else if (file === '.travis.yml') travis(y, doc.contents);
  else if (file.startsWith('.circleci/')) circleCi(y, doc.contents);
  else gitlabCi(y, doc.contents);
}
