import type { PASS_AS } from '../config/options.ts';
import { ConfigError, ExternalServiceError } from '../errors/errors.ts';
import type { Logger } from '../log/logger.ts';
import type { AgentPipeline, BridgeGitLab } from '../commands/bridge-port.ts';
import type { CommandRequest } from '../commands/note-rules.ts';
import { nonEmptyVariables, pipelineInputs, pipelineVariables } from '../commands/variables.ts';

/**
 * How the bridge hands a request to the pipeline it triggers:
 * `inputs` (the project's `.gitlab-ci.yml` declares the `mr_agent_*` pipeline
 * inputs, docs/ci-component.md), `variables` (MR_AGENT_TASK, …; refused where
 * "Minimum role to use pipeline variables" is above the trigger token owner's
 * role, GitLab.com's default), or `auto`: inputs first, and variables for a
 * project whose file declares none. GitLab keeps a failed pipeline for inputs
 * its file does not take, so `auto` remembers such a project for a while.
 */
export type PassAs = (typeof PASS_AS)[number];

/** How long `auto` keeps using variables for a project whose file declared no inputs. */
export const NO_INPUTS_MEMORY_MS = 15 * 60_000;

export const VARIABLES_SETTING =
  'Settings → CI/CD → Variables → "Minimum role to use pipeline variables"';

/** GitLab's answers that matter here (the trigger API's 400 and 422 bodies). */
function gitlabRefusal(error: unknown): 'variables-forbidden' | 'inputs-undeclared' | undefined {
  if (!(error instanceof ExternalServiceError)) return undefined;
  if (error.status !== 400 && error.status !== 422) return undefined;
  if (error.message.includes('Insufficient permissions to set pipeline variables'))
    return 'variables-forbidden';
  if (
    error.message.includes('Given inputs not defined in the `spec` section') ||
    error.message.includes('unknown input arguments')
  )
    return 'inputs-undeclared';
  return undefined;
}

function variablesForbidden(cause: unknown, triedInputs: boolean): ConfigError {
  return new ConfigError(
    'Insufficient permissions to set pipeline variables (the request was sent as pipeline variables)',
    {
      cause,
      hint: [
        `The project's ${VARIABLES_SETTING} is above the trigger token owner's role (GitLab.com's default for new projects is "No one allowed").`,
        triedInputs
          ? 'Its `.gitlab-ci.yml` declares no `mr_agent_*` pipeline inputs either: add the header from the mr-agent docs (docs/ci-component.md, "Requests as pipeline inputs") so the request travels as inputs, or lower that setting to the trigger token owner\'s role.'
          : 'Pass the request as pipeline inputs instead (the bridge\'s `trigger.pass_as: inputs` or `auto`, with the `.gitlab-ci.yml` header from docs/ci-component.md, "Requests as pipeline inputs"), or lower that setting to the trigger token owner\'s role.',
      ].join(' '),
    },
  );
}

/**
 * GitLab refused a trigger that carried inputs only, with the message about
 * pipeline variables: some GitLab versions count the `TRIGGER_PAYLOAD`
 * variable they add to every trigger-token pipeline as one the caller set
 * (a GitLab bug on some versions, see docs/gitlab.md), so the project's setting refuses it. Sending
 * variables instead would be refused the same way.
 */
function inputsRefusedAsVariables(cause: unknown): ConfigError {
  return new ConfigError(
    'Insufficient permissions to set pipeline variables, although the request was sent as pipeline inputs only',
    {
      cause,
      hint: [
        'This GitLab version counts the `TRIGGER_PAYLOAD` variable it adds to every trigger-token pipeline as a pipeline variable (GitLab issue 557381),',
        `so the project's ${VARIABLES_SETTING} refuses even an inputs-only trigger when it is above the trigger token owner's role.`,
        "Lower that setting to the trigger token owner's role (Developer or Maintainer), or upgrade GitLab to a release with the fix; the trigger token itself is fine.",
      ].join(' '),
    },
  );
}

function inputsUndeclared(cause: unknown): ConfigError {
  return new ConfigError(
    "Given inputs not defined in the `spec` section: the project's `.gitlab-ci.yml` does not declare the mr-agent pipeline inputs",
    {
      cause,
      hint: 'Add the `spec: inputs:` header from the mr-agent docs (docs/ci-component.md, "Requests as pipeline inputs") to the file on this branch, or set the bridge\'s `trigger.pass_as` to `auto` or `variables`.',
    },
  );
}

export interface PipelineStarterDeps {
  gitlab: BridgeGitLab;
  token: string;
  passAs: PassAs;
  logger: Logger;
  now?: () => number;
}

export type PipelineStarter = (request: CommandRequest) => Promise<AgentPipeline>;

export function createPipelineStarter(deps: PipelineStarterDeps): PipelineStarter {
  const now = deps.now ?? Date.now;
  const withoutInputs = new Map<number, number>();
  const trigger = (request: CommandRequest, how: 'inputs' | 'variables') =>
    deps.gitlab.triggerPipeline(
      request.projectId,
      request.ref,
      deps.token,
      how === 'inputs'
        ? { inputs: pipelineInputs(request) }
        : { variables: nonEmptyVariables(pipelineVariables(request)) },
    );

  async function asVariables(request: CommandRequest, triedInputs: boolean) {
    try {
      return await trigger(request, 'variables');
    } catch (error) {
      if (gitlabRefusal(error) === 'variables-forbidden')
        throw variablesForbidden(error, triedInputs);
      throw error;
    }
  }

  return async (request) => {
    if (deps.passAs === 'variables') return asVariables(request, false);
    const remembered = withoutInputs.get(request.projectId);
    if (deps.passAs === 'auto' && remembered !== undefined && now() < remembered)
      return asVariables(request, true);
    try {
      return await trigger(request, 'inputs');
    } catch (error) {
      const refusal = gitlabRefusal(error);
      if (refusal === 'variables-forbidden') throw inputsRefusedAsVariables(error);
      if (refusal !== 'inputs-undeclared') throw error;
      if (deps.passAs === 'inputs') throw inputsUndeclared(error);
      deps.logger.info('the project declares no mr-agent pipeline inputs; passing variables', {
        projectId: request.projectId,
      });
      withoutInputs.set(request.projectId, now() + NO_INPUTS_MEMORY_MS);
      return asVariables(request, true);
    }
  };
}
