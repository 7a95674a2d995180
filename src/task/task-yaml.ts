import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { ConfigError } from '../errors/errors.ts';
import { WORKER_KINDS } from '../config/options.ts';
import { readYamlText } from '../config/yaml-text.ts';
import { taskTitle } from './title.ts';

/**
 * A section whose entries are all commented out (`meta:` followed only by
 * comments) is null in YAML; it means "nothing set here", as if it were absent.
 */
function optionalSection<T extends z.ZodType>(schema: T) {
  return z.preprocess((value) => (value === null ? undefined : value), schema);
}

/** Task YAML, version 1 (docs/agent-runner.md), with its defaults. */
export const TaskYaml = z.object({
  version: z.literal(1, { error: 'expected version: 1' }),
  task: z.object({
    id: z.string().min(1).optional(),
    title: z.string().default(''),
    repo: z.string().min(1).default('.'),
    description: z.string().default(''),
    dependencies: z.array(z.string()).default([]),
    wbs_level: z.number().int().min(0).default(0),
    phase_name: z.string().optional(),
    suggested_impl: z
      .object({
        language: z.string().optional(),
        file_paths: z.array(z.string()).default([]),
        constraints: z.array(z.string()).default([]),
      })
      .optional(),
    prd: z
      .object({ path: z.string().min(1).optional(), text: z.string().min(1).optional() })
      .refine((p) => Boolean(p.path) !== Boolean(p.text), {
        message: 'expected exactly one of prd.path or prd.text',
      }),
    test: z.object({ command: z.string().min(1), cwd: z.string().default('.') }).optional(),
  }),
  runner: optionalSection(
    z
      .object({
        max_loops: z.number().int().min(1).default(10),
        meta: optionalSection(
          z
            .object({
              kind: z.enum(['openai-chat', 'mock']).default('openai-chat'),
              model: z.string().min(1).optional(),
              system_prompt: z.string().optional(),
            })
            .prefault({}),
        ),
        worker: optionalSection(
          z
            .object({
              kind: z.enum(WORKER_KINDS).default('builtin'),
              model: z.string().optional(),
              docker_image: z.string().optional(),
              max_run_time_sec: z.number().int().min(1).default(1800),
              env: optionalSection(z.record(z.string(), z.string()).default({})),
            })
            .prefault({}),
        ),
      })
      .prefault({}),
  ),
});
export type TaskYaml = z.infer<typeof TaskYaml>;

/** A task ready to run: defaults applied, `env:` references resolved. */
export interface TaskSpec {
  id: string;
  title: string;
  repo: string;
  description: string;
  prd: { path?: string; text?: string };
  test?: { command: string; cwd: string };
  maxLoops: number;
  meta: { kind: 'openai-chat' | 'mock'; model?: string; systemPrompt?: string };
  worker: {
    kind: (typeof WORKER_KINDS)[number];
    model?: string;
    maxRunTimeSec: number;
    env: Record<string, string>;
  };
  dependencies: string[];
  suggestedImpl?: { language?: string; filePaths: string[]; constraints: string[] };
}

const TASK_YAML_HINT =
  'See "Task YAML" in README.md for the format (version: 1, task.prd.text or task.prd.path).';

/** zod's message, with "expected object, received undefined" said as what it is: a missing field. */
function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type' && /received undefined$/.test(issue.message))
    return `missing (expected ${issue.expected})`;
  return issue.message;
}

function formatIssuePath(pathParts: readonly PropertyKey[]): string {
  return pathParts.length === 0 ? '(top level)' : pathParts.map(String).join('.');
}

/** Replaces `env:NAME` values; every unset name is reported. */
function resolveEnvRefs(
  values: Record<string, string>,
  env: Readonly<Record<string, string | undefined>>,
  where: string,
  problems: string[],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) {
    const match = /^env:([A-Za-z_][A-Za-z0-9_]*)$/.exec(value);
    if (!match) {
      out[key] = value;
      continue;
    }
    const name = match[1]!;
    const resolved = env[name];
    if (resolved === undefined)
      problems.push(`${where}.${key}: refers to env:${name}, but ${name} is not set`);
    else out[key] = resolved;
  }
  return out;
}

/** Parses and validates Task YAML; throws a ConfigError naming every bad path. */
export function parseTaskYaml(
  text: string,
  location: string,
  env: Readonly<Record<string, string | undefined>>,
): TaskSpec {
  const read = readYamlText(text, location);
  if (!read.ok) {
    throw new ConfigError('the task file is not valid YAML', {
      where: location,
      problems: read.problems,
      hint: TASK_YAML_HINT,
    });
  }
  const parsed = TaskYaml.safeParse(read.value);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${location}: ${formatIssuePath(issue.path)}: ${issueMessage(issue)}`,
    );
    throw new ConfigError('the task file does not match Task YAML version 1', {
      where: location,
      problems,
      hint: TASK_YAML_HINT,
    });
  }
  const data = parsed.data;
  const problems: string[] = [];
  const workerEnv = resolveEnvRefs(
    data.runner.worker.env,
    env,
    `${location}: runner.worker.env`,
    problems,
  );
  if (problems.length > 0)
    throw new ConfigError('the task file refers to unset variables', {
      where: location,
      problems,
      hint: 'Export each variable named, or remove its entry from runner.worker.env (only a coding CLI worker uses them).',
    });
  return {
    id: data.task.id ?? randomUUID(),
    title: data.task.title,
    repo: data.task.repo,
    description: data.task.description,
    prd: {
      ...(data.task.prd.path ? { path: data.task.prd.path } : {}),
      ...(data.task.prd.text ? { text: data.task.prd.text } : {}),
    },
    ...(data.task.test ? { test: data.task.test } : {}),
    maxLoops: data.runner.max_loops,
    meta: {
      kind: data.runner.meta.kind,
      ...(data.runner.meta.model ? { model: data.runner.meta.model } : {}),
      ...(data.runner.meta.system_prompt ? { systemPrompt: data.runner.meta.system_prompt } : {}),
    },
    worker: {
      kind: data.runner.worker.kind,
      ...(data.runner.worker.model ? { model: data.runner.worker.model } : {}),
      maxRunTimeSec: data.runner.worker.max_run_time_sec,
      env: workerEnv,
    },
    dependencies: data.task.dependencies,
    ...(data.task.suggested_impl
      ? {
          suggestedImpl: {
            ...(data.task.suggested_impl.language
              ? { language: data.task.suggested_impl.language }
              : {}),
            filePaths: data.task.suggested_impl.file_paths,
            constraints: data.task.suggested_impl.constraints,
          },
        }
      : {}),
  };
}

/** A task from `--task "<text>"`. */
export function taskFromText(
  text: string,
  options: { repo?: string; id?: string; maxLoops?: number } = {},
): TaskSpec {
  return {
    id: options.id ?? randomUUID(),
    title: taskTitle(text),
    repo: options.repo ?? '.',
    description: text,
    prd: { text },
    maxLoops: options.maxLoops ?? 10,
    meta: { kind: 'openai-chat' },
    worker: { kind: 'builtin', maxRunTimeSec: 1800, env: {} },
    dependencies: [],
  };
}
