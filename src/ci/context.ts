import * as z from 'zod';
import { ConfigError, UsageError } from '../errors/errors.ts';
import { runnerSettings, type RunnerSettings } from './runner-settings.ts';

/**
 * What `mr-agent ci` learns from its job's environment (docs/ci-component.md):
 * GitLab's predefined variables, the request variables a trigger passes
 * (`MR_AGENT_TASK`, `MR_AGENT_NOTE_ID`, …) and `TRIGGER_PAYLOAD`. Pure: the
 * environment in, a `CiContext` out, or one error naming every bad variable.
 * Reading the payload file, checking permissions and running happen later.
 */

/** `--step`: the whole run in one job, or the planning and the work of the two-step flow. */
export const CI_STEPS = ['all', 'plan', 'run'] as const;
export type CiStep = (typeof CI_STEPS)[number];

/** Pipeline sources an agent job may run in; `parent_pipeline` only for the run step. */
export const AGENT_PIPELINE_SOURCES = ['trigger', 'api', 'web', 'pipeline', 'chat'] as const;

const blank = (value: unknown) =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;
const text = z.preprocess(blank, z.string().optional());
const requiredText = z.preprocess(blank, z.string());
const id = z.preprocess(blank, z.coerce.number().int().positive());
const optionalId = z.preprocess(blank, z.coerce.number().int().positive().optional());
/** A user id GitLab may leave empty or 0 (gitlab-ci-local does): treated as unknown. */
const userId = z.preprocess((value) => {
  const n = Number(blank(value));
  return Number.isInteger(n) && n > 0 ? n : undefined;
}, z.number().optional());

/** A job timeout in seconds; anything else (an old runner leaves it out) counts as unknown. */
const seconds = z.preprocess((value) => {
  const n = Number(blank(value));
  return Number.isInteger(n) && n > 0 ? n : undefined;
}, z.number().optional());
/** An ISO 8601 time such as `2022-01-31T16:47:55Z`, as epoch milliseconds; unknown when unreadable. */
const instant = z.preprocess((value) => {
  const text = blank(value);
  const ms = typeof text === 'string' ? Date.parse(text) : Number.NaN;
  return Number.isFinite(ms) ? ms : undefined;
}, z.number().optional());

/** The variables read, lenient where GitLab may leave one out. */
export const CiVariables = z.object({
  CI_API_V4_URL: z.preprocess(blank, z.url({ protocol: /^https?$/ })),
  CI_SERVER_URL: text,
  CI_PROJECT_ID: id,
  CI_PROJECT_PATH: text,
  CI_PROJECT_DIR: requiredText,
  CI_DEFAULT_BRANCH: requiredText,
  CI_COMMIT_REF_NAME: text,
  CI_COMMIT_SHA: text,
  CI_PIPELINE_ID: id,
  CI_PIPELINE_SOURCE: requiredText,
  CI_PIPELINE_CREATED_AT: instant,
  CI_JOB_ID: id,
  CI_JOB_URL: text,
  CI_JOB_TIMEOUT: seconds,
  CI_JOB_STARTED_AT: instant,
  CI_MERGE_REQUEST_IID: optionalId,
  GITLAB_USER_ID: userId,
  GITLAB_USER_LOGIN: text,
  MR_AGENT_TASK: text,
  MR_AGENT_SOURCE: z.preprocess(blank, z.enum(['note', 'manual', 'api']).optional()),
  MR_AGENT_COMMAND: text,
  MR_AGENT_NOTE_ID: optionalId,
  MR_AGENT_MR_IID: optionalId,
  MR_AGENT_ISSUE_IID: optionalId,
  MR_AGENT_TRIGGERED_BY: optionalId,
  TRIGGER_PAYLOAD: text,
  MR_AGENT_RUNNER_TAGS: text,
  MR_AGENT_RESOURCE_GROUP: text,
});
export type CiVariables = z.infer<typeof CiVariables>;

const EXPECTED: Partial<Record<keyof CiVariables, string>> = {
  CI_API_V4_URL: 'an http(s) URL',
  MR_AGENT_SOURCE: 'one of note, manual, api',
};

export type CiTarget =
  { kind: 'merge_request'; iid: number } | { kind: 'issue'; iid: number } | { kind: 'none' };

/** How the job was asked to act. */
export type CiTrigger =
  /** The webhook bridge triggered the pipeline for a comment. */
  | {
      kind: 'note';
      noteId: number;
      command: string;
      task: string;
      target: CiTarget;
      triggeredBy: number | undefined;
    }
  /** "Run pipeline", the pipelines API or a trigger token with MR_AGENT_TASK. */
  | {
      kind: 'manual';
      source: 'manual' | 'api';
      task: string;
      target: CiTarget;
      triggeredBy: number | undefined;
    }
  /** A comment webhook pointed at the trigger URL; the value is the payload file's path. */
  | { kind: 'payload'; payload: string }
  /** Nothing asks for work (only valid for the run step, which reads the plan job's hand-off). */
  | { kind: 'none' };

export interface CiContext {
  step: CiStep;
  gitlab: {
    apiUrl: string;
    serverUrl: string | undefined;
    projectId: number;
    projectPath: string | undefined;
    defaultBranch: string;
  };
  projectDir: string;
  ref: string | undefined;
  sha: string | undefined;
  /** `createdAt`: `CI_PIPELINE_CREATED_AT`, epoch milliseconds. */
  pipeline: { id: number; source: string; createdAt?: number | undefined };
  job: {
    id: number;
    url: string | undefined;
    /** The job's timeout (`CI_JOB_TIMEOUT`, GitLab 15.7+), when the runner tells it. */
    timeoutSeconds?: number | undefined;
    /** When the job started (`CI_JOB_STARTED_AT`), epoch milliseconds. */
    startedAt?: number | undefined;
  };
  /** The merge request of a merge-request pipeline (never an agent trigger, kept for the record). */
  mergeRequestIid: number | undefined;
  /** The user GitLab runs the pipeline as (the trigger token's owner for `trigger`). */
  pipelineUser: { id: number; login: string | undefined } | undefined;
  trigger: CiTrigger;
  /** The component's `runner_tags` and `resource_group`, for the child pipeline's job. */
  runner: RunnerSettings;
}

function describeProblem(issue: z.core.$ZodIssue, env: Readonly<Record<string, unknown>>): string {
  const name = String(issue.path[0] ?? '(environment)') as keyof CiVariables;
  const value = env[name];
  const expected =
    EXPECTED[name] ??
    (name.endsWith('_ID') || name.endsWith('_IID') || name.endsWith('_BY')
      ? 'a positive whole number'
      : 'a non-empty value');
  const got =
    value === undefined || value === '' ? 'it is not set' : `got ${JSON.stringify(value)}`;
  return `${name}: expected ${expected}, ${got}`;
}

function targetOf(vars: CiVariables): CiTarget {
  if (vars.MR_AGENT_MR_IID) return { kind: 'merge_request', iid: vars.MR_AGENT_MR_IID };
  if (vars.MR_AGENT_ISSUE_IID) return { kind: 'issue', iid: vars.MR_AGENT_ISSUE_IID };
  return { kind: 'none' };
}

/** The bridge's note id wins, then an explicit task, then a webhook payload. */
function triggerOf(vars: CiVariables): CiTrigger {
  const target = targetOf(vars);
  const triggeredBy = vars.MR_AGENT_TRIGGERED_BY;
  if (vars.MR_AGENT_NOTE_ID) {
    return {
      kind: 'note',
      noteId: vars.MR_AGENT_NOTE_ID,
      command: vars.MR_AGENT_COMMAND ?? 'run',
      task: vars.MR_AGENT_TASK ?? '',
      target,
      triggeredBy,
    };
  }
  if (vars.MR_AGENT_TASK) {
    const source =
      vars.MR_AGENT_SOURCE === 'manual' || vars.MR_AGENT_SOURCE === 'api'
        ? vars.MR_AGENT_SOURCE
        : vars.CI_PIPELINE_SOURCE === 'web'
          ? 'manual'
          : 'api';
    return { kind: 'manual', source, task: vars.MR_AGENT_TASK, target, triggeredBy };
  }
  if (vars.TRIGGER_PAYLOAD) return { kind: 'payload', payload: vars.TRIGGER_PAYLOAD };
  return { kind: 'none' };
}

function checkSource(step: CiStep, source: string): void {
  const allowed: readonly string[] =
    step === 'run' ? [...AGENT_PIPELINE_SOURCES, 'parent_pipeline'] : AGENT_PIPELINE_SOURCES;
  if (allowed.includes(source)) return;
  throw new UsageError(
    `mr-agent ci runs only in pipelines started for the agent, not in a "${source}" pipeline`,
    {
      where: 'CI_PIPELINE_SOURCE',
      hint: `agent pipelines come from a trigger token, the API or "Run pipeline" (${allowed.join(', ')}); keep the component's default rules.`,
    },
  );
}

/** Parses the job environment; throws ConfigError listing every bad variable. */
export function parseCiContext(
  env: Readonly<Record<string, string | undefined>>,
  step: CiStep,
): CiContext {
  const parsed = CiVariables.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => describeProblem(issue, env));
    throw new ConfigError(
      `not a usable GitLab CI job environment (${problems.length} problem${problems.length === 1 ? '' : 's'})`,
      {
        problems,
        hint: 'mr-agent ci runs inside a GitLab CI job; use `mr-agent run` elsewhere.',
      },
    );
  }
  const vars = parsed.data;
  checkSource(step, vars.CI_PIPELINE_SOURCE);
  const trigger = triggerOf(vars);
  if (trigger.kind === 'none' && step !== 'run') {
    throw new UsageError('this pipeline carries no request for the agent', {
      where: 'MR_AGENT_TASK',
      hint: 'set MR_AGENT_TASK (with MR_AGENT_MR_IID or MR_AGENT_ISSUE_IID), trigger it from a comment through the bridge, or point a comment webhook at the trigger URL (TRIGGER_PAYLOAD).',
    });
  }
  return {
    step,
    gitlab: {
      apiUrl: vars.CI_API_V4_URL.replace(/\/+$/, ''),
      serverUrl: vars.CI_SERVER_URL,
      projectId: vars.CI_PROJECT_ID,
      projectPath: vars.CI_PROJECT_PATH,
      defaultBranch: vars.CI_DEFAULT_BRANCH,
    },
    projectDir: vars.CI_PROJECT_DIR,
    ref: vars.CI_COMMIT_REF_NAME,
    sha: vars.CI_COMMIT_SHA,
    pipeline: {
      id: vars.CI_PIPELINE_ID,
      source: vars.CI_PIPELINE_SOURCE,
      ...(vars.CI_PIPELINE_CREATED_AT ? { createdAt: vars.CI_PIPELINE_CREATED_AT } : {}),
    },
    job: {
      id: vars.CI_JOB_ID,
      url: vars.CI_JOB_URL,
      ...(vars.CI_JOB_TIMEOUT ? { timeoutSeconds: vars.CI_JOB_TIMEOUT } : {}),
      ...(vars.CI_JOB_STARTED_AT ? { startedAt: vars.CI_JOB_STARTED_AT } : {}),
    },
    mergeRequestIid: vars.CI_MERGE_REQUEST_IID,
    pipelineUser: vars.GITLAB_USER_ID
      ? { id: vars.GITLAB_USER_ID, login: vars.GITLAB_USER_LOGIN }
      : undefined,
    trigger,
    runner: runnerSettings(vars.MR_AGENT_RUNNER_TAGS, vars.MR_AGENT_RESOURCE_GROUP),
  };
}

/** Every user whose access level the job re-checks: the commenter and the pipeline's user. */
export function usersToCheck(context: CiContext): number[] {
  const ids = new Set<number>();
  const trigger = context.trigger;
  if ((trigger.kind === 'note' || trigger.kind === 'manual') && trigger.triggeredBy) {
    ids.add(trigger.triggeredBy);
  }
  if (context.pipelineUser) ids.add(context.pipelineUser.id);
  return [...ids];
}
