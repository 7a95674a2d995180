/**
 * English texts of what goes wrong, as the notes tell it (issues #23, #24):
 * the error catalog's hints (src/errors/), the environment failure's hints
 * and stop reasons, notices on the progress note and the bridge's replies.
 * Spread into `en.ts`; `ja-errors.ts` translates every key.
 */
export const enErrors = {
  // a hint per error class (src/errors/catalog.ts), for errors thrown without their own
  'hint.class.ConfigError':
    'Fix the value shown, then run `mr-agent config check` to see the resolved configuration.',
  'hint.class.UsageError': 'Run `mr-agent --help` for usage.',
  'hint.class.ExternalServiceError':
    'Check the service URL, the token and its scopes; the request is retried on 429 and 5xx.',
  'hint.class.ModelBehaviorError':
    'The model did not follow the expected reply format; try a stronger model for this role.',
  'hint.class.CommandFailedError':
    'See the command output (in the job log, or above); the environment may need different setup commands.',
  'hint.class.LimitReachedError':
    'Raise the limit in `.mr-agent.yml` if the task really needs more room.',
  'hint.class.CancelledError':
    'The run was cancelled; its final state was written to the progress note.',
  'hint.internal':
    'This is a bug in mr-agent; please report it with the log (run with `MR_AGENT_LOG_LEVEL=debug`).',
  'hint.jobLog': 'The job log has the details.',

  // hints of errors a run meets (their throw sites name the key)
  'hint.llm.apiKey':
    'Set the variable (a masked CI/CD variable in GitLab), or name another one with `llm.api_key_variable`.',
  'hint.llm.401': 'Check the API key in the variable named by `llm.api_key_variable`.',
  'hint.llm.403': 'The key has no access to this model or endpoint; check `llm.model` and the key.',
  'hint.llm.404': 'Check `llm.base_url` and `llm.model`.',
  'hint.llm.retry':
    'The endpoint kept failing; try again later or add another candidate in `llm.profiles`.',
  'hint.model.reasks':
    'Try a stronger model for this role (`llm.roles.<role>.model`) or raise `llm.max_reasks`.',
  'hint.gitlab.401': 'The GitLab token is missing, wrong, expired or revoked.',
  'hint.gitlab.scope':
    'The GitLab token lacks a scope: mr-agent needs `api` (notes, merge requests, pushes).',
  'hint.gitlab.403': 'The token user lacks the role this action needs on the project.',
  'hint.gitlab.429': 'GitLab rate-limited the requests; try again later.',
  'hint.gitlab.budget':
    'Check that GitLab is reachable from the runner and healthy; for a slow instance raise `gitlab.request_budget_sec` (`MR_AGENT_GITLAB_REQUEST_BUDGET_SEC`).',
  'hint.deliver.patchKept': 'The change is kept in the job artifacts (`.mr-agent/patch.diff`).',
  'hint.deliver.secretWithheld':
    'A command or the model wrote a secret of the job into the change (plain, split or encoded); this is what a prompt injection would do. The rest of the change, without the files named, is in `.mr-agent/patch.diff` in the job artifacts.',
  'hint.deliver.gitGuard':
    'A command run by the agent wrote into `.git` (config, hooks); this is what a prompt injection would do. Inspect the job artifacts before pushing by hand.',
  'hint.confidentialIssue':
    'Everything the agent writes (notes, commits, a merge request, the job artifacts) is public, so it does not read a confidential issue. If the task and its result may be public, describe the task in a public issue, or run it with `MR_AGENT_TASK` alone.',

  // the cause line of a failed note in a language the error's own text is not in
  'facts.errorLabel': 'Error:',

  // hints of known environment failures (phases/environment/signatures.ts)
  'envHint.goChecksum': 'a module checksum did not match `go.sum`',
  'envHint.npmOffline': 'npm is in offline mode and the package is not in its cache',
  'envHint.npmCi': 'use `npm install` or update the lockfile',
  'envHint.pnpmFrozen':
    'use `pnpm install --no-frozen-lockfile` or the pnpm version of `packageManager`',
  'envHint.versionMissing': 'the version may not exist, or a registry mirror may lag behind',
  'envHint.pythonPackage':
    'the name may be wrong, or the package may not support this Python version',
  'envHint.oomKiller': 'usually the out-of-memory killer',
  'envHint.mavenCached':
    'Maven cached the failed download; run it again with `-U` to force the update',
  'envHint.unreachableHost':
    'the runner cannot resolve `{host}`, which a dependency is fetched from (not the package registry); let the runner reach that host, or vendor or mirror that dependency',

  // why the environment setup stopped
  'envStop.llmFailed': 'the regeneration request failed: {error}',
  'envStop.fatal': 'a fatal error (system resources or security) is not retried',
  'envStop.retries': 'the {kind} retries were used up',
  'envStop.regenerations': {
    one: 'the 1 LLM regeneration was used up',
    other: 'the {count} LLM regenerations were used up',
  },
  'envStop.stopped': 'setup stopped',
  'envStop.unreachableHost': 'a host the runner cannot resolve is not retried',

  // notices on the progress note
  'notice.filesNotWritten': 'Some run files could not be written: {error}',
  'notice.interrupted': {
    one: 'An earlier run was interrupted before finishing: {runs}.',
    other: 'Earlier runs were interrupted before finishing: {runs}.',
  },
  'notice.interruptedJob': 'job {job} (started {time})',
  'notice.interruptedRun': 'run {run} (started {time})',
  'notice.handedOver':
    'Planned. The work continues in the {environment} environment (child pipeline).',

  // the reply when a job fails before its run has a progress note (src/ci/early-failure.ts)
  'early.heading': 'mr-agent could not start the run',
  'early.whatToDo': 'What to do:',
  'early.fallback': 'see the job log, fix the cause, then comment the command again.',
  'early.details': 'Details: {job} log; {file} in its artifacts.',
  'early.job': 'job {id}',

  // the bridge's replies in a command's thread (src/commands/replies.ts)
  'reply.thisMergeRequest': 'this merge request',
  'reply.thisIssue': 'this issue',
  'reply.pipeline': 'pipeline #{id}',
  'reply.noRun': 'No agent run found for {where}.',
  'reply.lastRun': 'The last agent run for {where} is {pipeline}: **{status}**.',
  'reply.alreadyRunning': 'An agent run is already in progress for {where}: {pipeline} ({status}).',
  'reply.notStarted':
    'This command was not started. Wait for the run to finish, or cancel it with {stop}.',
  'reply.joined':
    'Joined the running agent run for {where} ({pipeline}): it reads this at its next step and answers here. No second run was started.',
  'reply.queued':
    'The running agent run for {where} ({pipeline}) is already delivering, so this starts a follow-up run that continues from it: {next}.',
  'reply.busy':
    'Not started: the bridge has {count} commands waiting and takes no more right now. Please comment again in a minute.',
  'reply.authorBusy':
    'Not started: you already have {count} commands waiting on the bridge, so this one was not taken. Comment again once they are answered.',
  'reply.targetBusy':
    'Not started: another command for {where} held the start of a run for too long. Please comment again in a minute.',
  'reply.refusedMore': {
    one: '{count} more command of yours on {where} was refused for the same reason (marked 👀, no reply of its own).',
    other:
      '{count} more commands of yours on {where} were refused for the same reason (marked 👀, no reply of their own).',
  },
  'reply.stopped': 'Cancelled the agent run: {pipelines}.',
  'reply.nothingToStop': 'No agent run is active for {where}; nothing to stop.',
  'reply.startFailed': 'Could not start the agent pipeline.',
  'reply.gitlabAnswered': 'GitLab answered: {reason}',
  'reply.startFailedHint':
    'Check that the trigger token is valid and that `workflow:rules` allow pipelines with source `trigger`.',
  'reply.privateRefusal':
    'mr-agent started nothing: this command is in an internal note or on a confidential issue, and everything the agent writes on {where} (notes, commits, a merge request) would be public.\n\nAsk again in a public comment if the task and its result may be public.',
  'reply.followRun': 'Follow it in its {note}.',
  'reply.progressNote': 'progress note',
} as const;
