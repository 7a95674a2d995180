import * as z from 'zod';
import pkg from '../../package.json' with { type: 'json' };
import type { OptionKind } from './option-kinds.ts';

/**
 * Every option of mr-agent, declared once. The zod schema, environment
 * parsing, `config check` and the README table are all derived from this list.
 */
export interface OptionDef<K extends string = string, V = unknown> {
  key: K;
  kind: OptionKind;
  default: V;
  /** Environment variables read for it, highest priority first. */
  env: readonly string[];
  description: string;
  /** Only from the environment, never from a file; shown redacted. */
  secret?: boolean;
  /**
   * The user-config API may set it: a choice of the requesting user's own
   * (model, reasoning effort, temperature, planning) that moves no endpoint,
   * key, permission, trigger rule or folder. Every other key it sends is refused.
   */
  perUser?: boolean;
  /** Value type marker (type-level only). */
  readonly _value?: V;
}

function opt<K extends string, V>(
  key: K,
  kind: OptionKind,
  defaultValue: V,
  description: string,
  extra: { env?: readonly string[]; secret?: boolean; perUser?: boolean } = {},
): OptionDef<K, V> {
  return {
    key,
    kind,
    default: defaultValue,
    env: extra.env ?? [],
    description,
    secret: extra.secret,
    ...(extra.perUser ? { perUser: true } : {}),
  };
}

const bool = { type: 'boolean' } as const;
const int = (min?: number, max?: number) => ({ type: 'integer', min, max }) as const;
const num = (min?: number, max?: number) => ({ type: 'number', min, max }) as const;
const str = { type: 'string' } as const;
const url = { type: 'string', url: true } as const;
function oneOf<const T extends readonly string[]>(...values: T) {
  return { type: 'enum', values } as const;
}

export const STRATEGIES = ['chain_of_thought', 'hierarchical', 'simple'] as const;
export const ENVIRONMENTS = ['python', 'miniforge', 'node', 'java', 'go'] as const;
export const ACCESS_LEVELS = ['guest', 'reporter', 'developer', 'maintainer', 'owner'] as const;
export type MinAccessLevel = (typeof ACCESS_LEVELS)[number];
export const WORKER_KINDS = ['builtin', 'codex-cli', 'claude-code', 'gemini-cli'] as const;
/** How the webhook bridge passes a request to the pipeline (#21, src/trigger/pipeline-start.ts). */
export const PASS_AS = ['auto', 'inputs', 'variables'] as const;
/**
 * What a fork's merge request may do (docs/security.md, "A fork's code and
 * the project's secrets"): `patch` runs none of the
 * fork's code and delivers a patch; `run` starts its pipeline on the merge
 * request's own ref and runs the fork's setup, tests and commands there.
 */
export const FORKS = ['patch', 'run'] as const;
export type ForkMode = (typeof FORKS)[number];
export const LLM_ROLES = ['planning', 'execution', 'reflection', 'review'] as const;
export type LlmRole = (typeof LLM_ROLES)[number];

/** USD per million tokens, for the cost estimate; 0 or absent: not known. */
export const ModelPrice = z.object({
  input_per_mtok: z.number().min(0).optional(),
  output_per_mtok: z.number().min(0).optional(),
});
export type ModelPrice = z.infer<typeof ModelPrice>;

export const LlmProfile = z.object({
  name: z.string().optional(),
  base_url: z.string().optional(),
  model: z.string().min(1),
  api_key_variable: z.string().optional(),
  roles: z.array(z.enum(LLM_ROLES)).optional(),
  /** The profile's own prices; absent: `llm.price`. */
  price: ModelPrice.optional(),
});
export type LlmProfile = z.infer<typeof LlmProfile>;

type Effort = '' | 'minimal' | 'low' | 'medium' | 'high';
const EFFORTS = ['', 'minimal', 'low', 'medium', 'high'] as const;

function roleOptions<R extends LlmRole>(role: R) {
  const upper = role.toUpperCase();
  return [
    opt(
      `llm.roles.${role}.model`,
      str,
      '' as string,
      `Model for ${role} calls; empty uses llm.model.`,
      {
        env: [`MR_AGENT_LLM_${upper}_MODEL`],
        perUser: true,
      },
    ),
    opt(
      `llm.roles.${role}.reasoning_effort`,
      oneOf(...EFFORTS),
      '' as Effort,
      `Reasoning effort for ${role} calls (empty: the endpoint's default).`,
      {
        env: [`MR_AGENT_LLM_${upper}_REASONING_EFFORT`],
        perUser: true,
      },
    ),
    opt(
      `llm.roles.${role}.temperature`,
      num(-1, 2),
      -1 as number,
      `Temperature for ${role} calls; -1 leaves it to the endpoint.`,
      {
        env: [`MR_AGENT_LLM_${upper}_TEMPERATURE`],
        perUser: true,
      },
    ),
  ] as const;
}

/** The runner images this project publishes (images/<environment>/Dockerfile). */
export const IMAGE_REGISTRY = 'registry.gitlab.com/mr-agent/mr-agent';

function imageOption<E extends (typeof ENVIRONMENTS)[number]>(name: E) {
  return opt(
    `ci.images.${name}` as `ci.images.${E}`,
    { type: 'string', nonEmpty: true },
    `${IMAGE_REGISTRY}/${name}:${pkg.version}`,
    `Job image of the \`${name}\` environment${name === 'node' ? ' and of the planning job' : ''}.`,
    { env: [`MR_AGENT_IMAGE_${name.toUpperCase()}`] },
  );
}

export const OPTIONS = [
  // planning
  opt('planning.enabled', bool, true, 'Plan before executing.', {
    env: ['PLANNING_ENABLED'],
    perUser: true,
  }),
  opt(
    'planning.strategy',
    oneOf(...STRATEGIES),
    'chain_of_thought' as (typeof STRATEGIES)[number],
    'Planning strategy.',
    { env: ['PLANNING_STRATEGY'], perUser: true },
  ),
  opt('planning.max_subtasks', int(1), 100, 'Most subtasks a plan may have.', {
    env: ['PLANNING_MAX_SUBTASKS'],
    perUser: true,
  }),
  opt(
    'planning.decomposition_level',
    oneOf('detailed', 'moderate', 'minimal'),
    'moderate' as 'detailed' | 'moderate' | 'minimal',
    'How finely tasks are decomposed.',
  ),
  opt('planning.reflection.enabled', bool, true, 'Reflect on results during execution.', {
    env: ['REFLECTION_ENABLED'],
    perUser: true,
  }),
  opt('planning.reflection.trigger_on_error', bool, true, 'Reflect after an action fails.'),
  opt('planning.reflection.trigger_interval', int(0), 3, 'Reflect every N actions (0 = off).', {
    env: ['REFLECTION_INTERVAL'],
    perUser: true,
  }),
  opt(
    'planning.reflection.depth',
    oneOf('deep', 'moderate', 'shallow'),
    'moderate' as 'deep' | 'moderate' | 'shallow',
    'How deeply reflection evaluates (the rules of prompts/reflection-depth/<depth>.md).',
  ),
  opt('planning.revision.max_revisions', int(0), 3, 'Most plan revisions before asking a human.', {
    env: ['MAX_PLAN_REVISIONS'],
  }),
  opt(
    'planning.history.storage_type',
    oneOf('jsonl'),
    'jsonl' as const,
    'History storage (JSONL files).',
  ),
  opt(
    'planning.history.directory',
    str,
    'planning_history',
    'History folder inside the state directory.',
  ),
  opt(
    'planning.history.reuse_plan',
    bool,
    true,
    'Reuse the plan an earlier run of the task left (retry, resume, a Task YAML run again) when it may be.',
  ),
  opt(
    'planning.history.archive_after_days',
    int(0),
    30,
    'Days after its last entry a task history is gzipped into archive/ (0 = never).',
  ),
  opt(
    'planning.history.retention_days',
    int(0),
    90,
    'Days after its last entry a task history is deleted (0 = keep forever).',
    { env: ['MR_AGENT_HISTORY_RETENTION_DAYS'] },
  ),
  // replanning (docs/replanning.md)
  opt('planning.replanning.enabled', bool, true, 'Let the LLM decide on replanning.', {
    env: ['REPLANNING_ENABLED'],
  }),
  opt(
    'planning.replanning.llm_decision.min_confidence_threshold',
    num(0, 1),
    0.5,
    'Below this confidence a replan is not executed.',
    { env: ['REPLANNING_MIN_CONFIDENCE'] },
  ),
  opt(
    'planning.replanning.llm_decision.require_user_confirmation_on_low_confidence',
    bool,
    true,
    'Ask the user when confidence is low.',
  ),
  opt(
    'planning.replanning.llm_decision.user_confirmation_threshold',
    num(0, 1),
    0.3,
    'From this confidence up to the minimum, ask the user.',
  ),
  opt(
    'planning.replanning.goal_understanding.max_clarification_requests',
    int(0),
    2,
    'Most clarification requests.',
  ),
  opt(
    'planning.replanning.goal_understanding.auto_assume_on_no_response',
    bool,
    true,
    'Proceed on stated assumptions when nobody answers.',
  ),
  opt(
    'planning.replanning.goal_understanding.auto_assume_timeout_minutes',
    num(0),
    30,
    'Minutes to wait for an answer (0 = stop and wait for a reply).',
  ),
  opt(
    'planning.replanning.task_decomposition.max_redecomposition_attempts',
    int(0),
    3,
    'Most re-decompositions.',
  ),
  opt(
    'planning.replanning.action_sequence.max_regeneration_attempts',
    int(0),
    3,
    'Most action-sequence regenerations.',
  ),
  opt('planning.replanning.execution.max_action_retries', int(0), 3, 'Most retries of one action.'),
  opt('planning.replanning.execution.max_partial_replans', int(0), 2, 'Most partial replans.'),
  opt(
    'planning.replanning.reflection.max_plan_revisions',
    int(0),
    2,
    'Most plan revisions decided by replanning.',
  ),
  opt('planning.replanning.global.max_total_replans', int(0), 10, 'Most replans in one run.', {
    env: ['MAX_TOTAL_REPLANS'],
  }),
  opt(
    'planning.replanning.global.infinite_loop_detection',
    bool,
    true,
    'Stop replans that repeat the same trigger.',
  ),
  opt(
    'planning.replanning.global.same_trigger_max_count',
    int(1),
    2,
    'How often the same trigger may cause a replan.',
  ),
  // LLM (K1–K3)
  opt('llm.base_url', url, '', 'OpenAI-compatible endpoint (empty: the SDK default).', {
    env: ['MR_AGENT_LLM_BASE_URL', 'OPENAI_BASE_URL'],
  }),
  opt('llm.model', { type: 'string', nonEmpty: true }, 'gpt-5.2', 'Default model for every role.', {
    env: ['MR_AGENT_LLM_MODEL'],
    perUser: true,
  }),
  opt(
    'llm.api_key_variable',
    { type: 'string', nonEmpty: true },
    'OPENAI_API_KEY',
    'Name of the variable holding the API key.',
    { env: ['MR_AGENT_LLM_API_KEY_VAR'] },
  ),
  opt('llm.timeout_sec', int(1), 60, 'Timeout of one LLM request in seconds.', {
    env: ['META_TIMEOUT_SEC', 'MR_AGENT_LLM_TIMEOUT_SEC'],
  }),
  opt(
    'llm.max_attempts',
    int(1, 10),
    3,
    'Attempts per LLM request (retries on 429, 5xx, timeouts).',
    { env: ['MR_AGENT_LLM_MAX_ATTEMPTS'] },
  ),
  opt('llm.max_reasks', int(0, 10), 3, 'Re-asks when a reply fails validation.', {
    env: ['MR_AGENT_LLM_MAX_REASKS'],
  }),
  opt(
    'llm.structured_output',
    oneOf('auto', 'json_schema', 'off'),
    'auto' as 'auto' | 'json_schema' | 'off',
    'Use JSON-schema response formats (auto: until the endpoint refuses).',
    { env: ['MR_AGENT_LLM_STRUCTURED_OUTPUT'] },
  ),
  opt('llm.cooldown_sec', int(0), 120, 'Cool-down of a rate-limited profile in seconds.'),
  opt(
    'llm.price.input_per_mtok',
    num(0),
    0,
    'USD per million prompt tokens, for the cost estimate (0: unknown, tokens only).',
    { env: ['MR_AGENT_LLM_PRICE_INPUT_PER_MTOK'] },
  ),
  opt(
    'llm.price.output_per_mtok',
    num(0),
    0,
    'USD per million completion tokens, for the cost estimate (0: unknown, tokens only).',
    { env: ['MR_AGENT_LLM_PRICE_OUTPUT_PER_MTOK'] },
  ),
  opt(
    'llm.profiles',
    {
      type: 'json',
      schema: z.array(LlmProfile),
      expected: 'a list of {model, base_url?, api_key_variable?, roles?, price?}',
    },
    [] as LlmProfile[],
    'Extra endpoint/model candidates tried in order on rate limits.',
    { env: ['MR_AGENT_LLM_PROFILES'] },
  ),
  ...roleOptions('planning'),
  ...roleOptions('execution'),
  ...roleOptions('reflection'),
  ...roleOptions('review'),
  // GitLab
  opt('gitlab.url', url, '', 'GitLab base URL (in CI: CI_SERVER_URL).', {
    env: ['MR_AGENT_GITLAB_URL', 'CI_SERVER_URL'],
  }),
  opt('gitlab.token', str, '', 'Token with api and write_repository scope (masked CI variable).', {
    env: ['MR_AGENT_GITLAB_TOKEN'],
    secret: true,
  }),
  opt(
    'gitlab.token_variable',
    { type: 'string', nonEmpty: true },
    'MR_AGENT_GITLAB_TOKEN',
    'Name of the variable holding the GitLab token (`mr-agent ci`).',
    { env: ['MR_AGENT_GITLAB_TOKEN_VAR'] },
  ),
  opt(
    'gitlab.note_edit_interval_ms',
    int(1000),
    1000,
    'Least time between two edits of the progress note.',
  ),
  opt(
    'gitlab.request_budget_sec',
    int(1),
    120,
    'Longest time a job goes on waiting for a GitLab that gives no usable answer (timeouts, 5xx, 429), retries included; then it fails.',
    { env: ['MR_AGENT_GITLAB_REQUEST_BUDGET_SEC'] },
  ),
  opt(
    'notes.language',
    oneOf('auto', 'en', 'ja'),
    'auto' as 'auto' | 'en' | 'ja',
    "Language of the notes (and of the model's user-facing text): 'auto' follows the language people wrote the request in (the instruction, else the review threads or the merge request/issue it answers).",
    { env: ['MR_AGENT_LANGUAGE'] },
  ),
  // trigger and bridge (A1–A3)
  opt(
    'trigger.command_prefix',
    { type: 'string', nonEmpty: true },
    '/agent',
    'Comment prefix that starts a run.',
    { env: ['MR_AGENT_COMMAND_PREFIX'] },
  ),
  opt(
    'trigger.min_access_level',
    oneOf(...ACCESS_LEVELS),
    'developer' as MinAccessLevel,
    'Least project role allowed to command the agent.',
    { env: ['MR_AGENT_MIN_ACCESS_LEVEL'] },
  ),
  opt(
    'trigger.pass_as',
    oneOf(...PASS_AS),
    'auto' as (typeof PASS_AS)[number],
    "How the bridge passes a request: `inputs` (the project's `mr_agent_*` pipeline inputs), `variables` (MR_AGENT_TASK, …), or `auto` (inputs, else variables).",
    { env: ['MR_AGENT_TRIGGER_PASS_AS'] },
  ),
  opt(
    'trigger.forks',
    oneOf(...FORKS),
    'patch' as ForkMode,
    "A fork's merge request: `patch` runs none of the fork's code (no setup, lifecycle scripts, tests or `run_command`) and delivers a patch; `run` (opt-in, see docs/security.md) triggers the pipeline on the merge request's own ref, without protected variables, and runs them.",
    { env: ['MR_AGENT_TRIGGER_FORKS'] },
  ),
  opt('serve.port', int(0, 65535), 8080, 'Port of the webhook bridge.', {
    env: ['MR_AGENT_PORT', 'PORT'],
  }),
  opt('serve.max_body_bytes', int(1024), 1048576, 'Largest webhook body accepted.'),
  opt(
    'serve.host',
    { type: 'string', nonEmpty: true },
    '0.0.0.0',
    'Address the bridge listens on.',
    {
      env: ['MR_AGENT_HOST'],
    },
  ),
  opt(
    'serve.queue_limit',
    int(1),
    1000,
    'Commands the bridge keeps waiting at most; more are dropped and logged.',
  ),
  opt('serve.concurrency', int(1, 64), 4, 'Commands the bridge handles at once.'),
  opt(
    'serve.shutdown_timeout_sec',
    int(1),
    25,
    'How long the bridge finishes queued commands after SIGTERM.',
  ),
  opt('serve.webhook_secret', str, '', 'Secret token GitLab sends in X-Gitlab-Token.', {
    env: ['MR_AGENT_WEBHOOK_SECRET'],
    secret: true,
  }),
  opt('serve.trigger_token', str, '', 'Pipeline trigger token used by the bridge.', {
    env: ['MR_AGENT_TRIGGER_TOKEN'],
    secret: true,
  }),
  // CI/CD component (B1–B3): set by templates/agent.yml from its inputs
  opt(
    'ci.job_name',
    { type: 'string', nonEmpty: true },
    'mr-agent',
    'Name (prefix) of the agent jobs.',
    {
      env: ['MR_AGENT_JOB_NAME'],
    },
  ),
  opt('ci.stage', { type: 'string', nonEmpty: true }, 'test', 'Stage of the agent jobs.', {
    env: ['MR_AGENT_STAGE'],
  }),
  opt('ci.job_timeout', { type: 'string', nonEmpty: true }, '1h', 'Timeout of the agent jobs.', {
    env: ['MR_AGENT_JOB_TIMEOUT'],
  }),
  opt(
    'ci.artifacts_expire_in',
    { type: 'string', nonEmpty: true },
    '30 days',
    'How long the `.mr-agent/` job artifacts are kept.',
    { env: ['MR_AGENT_ARTIFACTS_EXPIRE_IN'] },
  ),
  opt(
    'ci.cache_key',
    { type: 'string', nonEmpty: true },
    'mr-agent',
    'Prefix of the dependency cache keys.',
    {
      env: ['MR_AGENT_CACHE_KEY'],
    },
  ),
  ...ENVIRONMENTS.map((name) => imageOption(name)),
  // environment (docs/environment.md)
  opt(
    'environment.name',
    oneOf('auto', ...ENVIRONMENTS),
    'auto' as 'auto' | (typeof ENVIRONMENTS)[number],
    'Execution environment (auto: detect and let the planner choose).',
    { env: ['MR_AGENT_ENVIRONMENT'] },
  ),
  opt('environment.setup_enabled', bool, true, 'Run setup commands before execution.', {
    env: ['MR_AGENT_ENVIRONMENT_SETUP'],
  }),
  opt('environment.setup_timeout_sec', int(1), 900, 'Timeout of one setup command in seconds.', {
    env: ['MR_AGENT_SETUP_TIMEOUT_SEC'],
  }),
  opt('environment.max_regenerations', int(0), 3, 'LLM regenerations of failed setup commands.'),
  // execution
  opt(
    'execution.command_timeout_sec',
    int(1),
    600,
    'Timeout of a command the agent runs, in seconds.',
    { env: ['MR_AGENT_COMMAND_TIMEOUT_SEC'] },
  ),
  opt('execution.max_turns_per_action', int(1), 25, 'Most model turns for one planned action.'),
  opt(
    'execution.max_tool_output_chars',
    int(1000),
    16000,
    'Tool output kept for the model per call.',
  ),
  opt(
    'execution.context_budget_chars',
    int(10000),
    120000,
    'Size at which older steps are summarised.',
  ),
  opt('execution.test_command', str, '', 'Test command (empty: Task YAML or detected).', {
    env: ['MR_AGENT_TEST_COMMAND'],
  }),
  // security (docs/security.md): who runs the commands taken from the model or the repository
  opt(
    'security.isolation',
    oneOf('auto', 'required', 'accept-risk'),
    'auto' as 'auto' | 'required' | 'accept-risk',
    "Commands (setup, tests, run_command) run as `security.command_user`, which needs mr-agent to run as root. 'required': without that, they are refused; 'accept-risk': they run as mr-agent's own user and can read its secrets; 'auto': 'required' in a CI job (`mr-agent ci`), 'accept-risk' for a local `mr-agent run`, whose secrets are the user's own.",
    { env: ['MR_AGENT_ISOLATION'] },
  ),
  opt(
    'security.command_user',
    { type: 'string', nonEmpty: true },
    'agent',
    "The unprivileged user commands run as: a name from /etc/passwd or `uid:gid` ('agent' falls back to nobody, 65534, when absent).",
    { env: ['MR_AGENT_COMMAND_USER'] },
  ),
  // runner (docs/agent-runner.md)
  opt('runner.max_loops', int(1), 10, 'Most VALIDATING → RUNNING loops.', {
    env: ['MR_AGENT_MAX_LOOPS'],
  }),
  opt(
    'runner.worker.kind',
    oneOf(...WORKER_KINDS),
    'builtin' as (typeof WORKER_KINDS)[number],
    'Who carries out subtasks.',
    { env: ['MR_AGENT_WORKER'] },
  ),
  opt('runner.worker.max_run_time_sec', int(1), 1800, 'Time limit of one external worker run.'),
  opt(
    'runner.worker.sandbox',
    oneOf('auto', 'outer', 'cli'),
    'auto' as 'auto' | 'outer' | 'cli',
    "Who sandboxes an external worker CLI: 'outer' (the CI job container; the CLI's own sandbox and approvals off), 'cli' (the CLI's own sandbox, workspace writes only), 'auto' (outer when CI=true).",
    { env: ['MR_AGENT_WORKER_SANDBOX'] },
  ),
  // review (docs/review.md)
  opt('review.enabled', bool, true, 'Review planning and execution and revise on FAIL.', {
    env: ['MR_AGENT_REVIEW_ENABLED'],
  }),
  opt('review.max_revisions', int(0), 3, 'Revisions of a phase before it fails.'),
  opt(
    'review.phases',
    { type: 'list' },
    ['planning', 'execution'] as string[],
    'Phases that are reviewed.',
  ),
  opt(
    'review.diff_chars_per_call',
    int(5000),
    60000,
    '`/agent review`: most diff characters one review call is shown; a larger change is reviewed in several calls, file by file.',
  ),
  // delivery
  opt('delivery.push', bool, true, 'Commit and push the change.', { env: ['MR_AGENT_PUSH'] }),
  opt(
    'delivery.branch_prefix',
    { type: 'string', nonEmpty: true },
    'mr-agent/',
    'Prefix of branches created for issues.',
  ),
  // logging, state, prompts, secrets
  opt(
    'log.level',
    oneOf('error', 'warn', 'info', 'debug'),
    'info' as 'error' | 'warn' | 'info' | 'debug',
    'Log level.',
    { env: ['MR_AGENT_LOG_LEVEL'] },
  ),
  opt(
    'log.format',
    oneOf('auto', 'json', 'text'),
    'auto' as 'auto' | 'json' | 'text',
    'Log format (auto: JSON when CI=true).',
    { env: ['MR_AGENT_LOG_FORMAT'] },
  ),
  opt(
    'state.directory',
    { type: 'string', nonEmpty: true },
    '.mr-agent',
    'Folder for notes, history and results.',
    { env: ['MR_AGENT_STATE_DIR'] },
  ),
  opt('prompts.directory', str, '', 'Folder whose prompt files override the built-in ones.', {
    env: ['MR_AGENT_PROMPTS_DIR'],
  }),
  opt(
    'user_config_api.url',
    url,
    '',
    "User-config API: the requesting user's own model, reasoning effort, temperature and planning choices (the options marked per-user); empty = off.",
    {
      env: ['USER_CONFIG_API_URL'],
    },
  ),
  opt(
    'secrets.variables',
    { type: 'list' },
    [] as string[],
    'Further variable names whose values are masked.',
    { env: ['MR_AGENT_SECRET_VARIABLES'] },
  ),
  // budgets: a hard limit on what one run, and all runs on one MR or issue, spend on the model
  opt(
    'budget.max_usd',
    { type: 'number', positive: true },
    null as number | null,
    'Most USD one run spends on the model (needs `llm.price.*`); the run stops before a call would pass it. Empty: no limit.',
    { env: ['MR_AGENT_BUDGET_USD'] },
  ),
  opt(
    'budget.max_tokens',
    { type: 'integer', positive: true },
    null as number | null,
    'Most tokens (prompt + completion) one run spends; the run stops before a call would pass it. Empty: no limit.',
    { env: ['MR_AGENT_BUDGET_TOKENS'] },
  ),
  opt(
    'budget.mr_max_usd',
    { type: 'number', positive: true },
    null as number | null,
    'Most USD all runs on one merge request or issue spend together, summed from the earlier runs (needs `llm.price.*`). Empty: no limit.',
    { env: ['MR_AGENT_MR_BUDGET_USD'] },
  ),
] as const;

type AnyOption = (typeof OPTIONS)[number];
type ValueOf<O> = O extends OptionDef<string, infer V> ? V : never;
type Nest<K extends string, V> = K extends `${infer H}.${infer R}`
  ? { [P in H]: Nest<R, V> }
  : { [P in K]: V };
type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (
  x: infer I,
) => void
  ? I
  : never;
type Expand<T> = T extends object ? { [K in keyof T]: Expand<T[K]> } : T;

/** The resolved configuration, nested as in `.mr-agent.yml`. */
export type Config = Expand<
  UnionToIntersection<
    AnyOption extends infer O
      ? O extends OptionDef<infer K, unknown>
        ? Nest<K, ValueOf<O>>
        : never
      : never
  >
>;
export type OptionKey = AnyOption['key'];

export const OPTION_BY_KEY: ReadonlyMap<string, OptionDef> = new Map(
  OPTIONS.map((o) => [o.key, o as OptionDef]),
);
