/**
 * English texts the notes share (the catalog's keys); a note kind's own
 * texts are in its file, beside its renderer (src/report/notes/registry.ts
 * lists the note kinds). Markdown is allowed;
 * `{name}` is a placeholder; `{ one, other }` is picked by `{count}`.
 * Keep `ja.ts` in step: it must have every key. What goes wrong (hints,
 * notices, the bridge's replies) is in `en-errors.ts`.
 */
import { enErrors } from './en-errors.ts';

export type Message = string | { readonly one: string; readonly other: string };

export const en = {
  ...enErrors,

  // states (heading of every note; status reply)
  'state.running': 'Working on it',
  'state.complete': 'Done',
  'state.failed': 'Failed',
  'state.cancelled': 'Cancelled',
  'state.interrupted': 'Interrupted',
  'state.awaiting_answer': 'Waiting for your answer',
  'state.needs_human': 'Needs your help',
  'state.paused': 'Paused',
  'state.budget_exhausted': 'Budget reached',
  'state.never_run': 'No run yet',

  // phases and replan checkpoints
  'phase.pre_planning': 'Pre-planning',
  'phase.planning': 'Planning',
  'phase.environment_setup': 'Environment',
  'phase.execution': 'Execution',
  'phase.reflection': 'Reflection',
  'phase.verification': 'Verification',
  'phase.complete': 'Completion',
  'checkpoint.goal_understanding': 'goal understanding',
  'checkpoint.task_decomposition': 'task decomposition',
  'checkpoint.action_sequence': 'action planning',
  'checkpoint.execution': 'execution',
  'checkpoint.reflection': 'monitoring and reflection',
  'checkpoint.final_evaluation': 'final evaluation',

  // the change line (second line of the progress and summary notes)
  'facts.now': 'Now: {phase}',
  'facts.steps': '{done} of {total} steps done',
  'facts.started': 'started {time}',
  'facts.viewJob': 'View job #{id}',
  'facts.pushed': 'Pushed {commit} to {branch}',
  'facts.pushedElsewhere': 'Pushed {commit} to {branch}, not to {intended}: {reason}',
  'facts.mergeRequest': 'draft merge request',
  'facts.nothingPushedYet': 'Nothing pushed yet',
  'facts.nothingPushed': 'Nothing was pushed',
  'facts.noChanges': 'Nothing pushed: no file changed',
  'facts.pushDisabled': 'Nothing pushed: `delivery.push` is off',
  'facts.notPushed': 'Nothing pushed: {reason}',
  'facts.patchPosted': 'Not pushed: the change is in a {patch}',
  'facts.patchNote': 'patch note',
  'facts.files': { one: '1 file changed', other: '{count} files changed' },
  'facts.timedOut': 'timed out',
  'facts.questions': {
    one: '{link} needs your answer before I go on',
    other: '{link} need your answer before I go on',
  },
  'facts.questionsLink': { one: '1 question', other: '{count} questions' },
  'facts.stoppedDuring': 'Stopped during {phase}: {who}',
  'facts.stopped': 'Stopped: {who}',
  'facts.pausedDuring': 'Paused during {phase}, as asked with {command}',
  'facts.paused': 'Paused, as asked with {command}',
  'facts.budgetStopped': 'Stopped before the next model call would pass {limit}',
  'budget.spend': '{spent} of {limit}',
  'budget.spendTokens': '{spent} of {limit} tokens',
  'budget.spendMr': '{spent} of {limit} on this merge request or issue',
  'budget.keptFailing': 'the budget stopped the run and the checks did not pass',
  'budget.keptUnchecked': 'the budget stopped the run before any check could confirm the change',
  'resume.resumed':
    'Went on from the checkpoint of {run}: {done} finished actions were not run again; its change was re-applied and found in the tree.',
  'resume.none': 'No checkpoint of an earlier run was found: a fresh plan is made.',
  'resume.corrupt': 'The checkpoint could not be read ({problem}): a fresh plan is made.',
  'resume.stale':
    "The checkpoint of {run} is older than the branch's new commits: it was not applied, a fresh plan is made.",
  'resume.notApplied':
    'The change of the checkpoint of {run} no longer applies to the branch: it was not applied, a fresh plan is made.',
  'facts.interrupted': 'The job ended before the run could record how it ended',
  'facts.humanReason': {
    one: 'Not converging after 1 plan revision, the most allowed',
    other: 'Not converging after {count} plan revisions, the most allowed',
  },
  'facts.humanReasonNone': 'Not converging, and plan revisions are turned off',
  'cancel.signal': 'the process got {signal}',
  'cancel.stopCommand': '{command} by @{user}',
  'cancel.gitlab': 'the job was cancelled in GitLab',
  'cancel.timeout': 'the job reached its timeout of {limit}',
  'cancel.unknown': 'the run was cancelled',
  'cancel.graceOver': '{who}, and the run did not stop within its grace period',

  // the next step (third line)
  'next.label': 'Next:',
  'next.running':
    'nothing needed from you yet; this note is updated as the run goes on. Comment {stop} to cancel.',
  'next.reviewCommit': 'review {commit}.',
  'next.theCommit': 'the commit',
  'next.reviewMergeRequest': 'review the {mr}.',
  'next.followUp': 'Reply with {command} for a follow-up change.',
  'next.applyPatch': 'apply the change from the {patch} with `git apply`, then push it yourself.',
  'next.noChanges':
    'nothing to review. If you expected a change, comment {command} and say more precisely what to change.',
  'next.pushDisabled':
    'nothing was pushed because `delivery.push` is off; turn it on, or make the change by hand.',
  'next.local': 'review the change in your working tree (`git diff`).',
  'next.reviewThreads':
    'read the review threads on the changed lines; after a push, comment {review} again to re-review.',
  'next.retry': 'Then {retry} or comment {command} again.',
  'next.retryJob': 'retry job #{id}',
  'next.cancelled':
    'nothing was kept from this run. To start again, comment {retry} (the same task, with its history) or {command}.',
  'next.timedOut':
    "nothing was kept from this run. Give the job more time — the component's `timeout` input, now {limit} — or ask for a smaller change, then comment {retry}.",
  'next.interrupted': 'comment {retry} to run the task again.',
  'next.paused':
    'comment {resume} to carry on: the next run takes over this plan with its revisions and reflections.',
  'next.budget':
    'comment {resume} to carry on from the checkpoint (`+$X` raises `budget.max_usd` by X for that run), or raise {limit} (the variable {variable}) first: the next run takes over this plan, skips the finished actions and keeps their change.',
  'next.needsHuman':
    'read {note}, then comment {command} with more specific guidance, or finish the change by hand.',
  'next.humanNote': 'what was tried',
  'next.openQuestion': 'Open the question',

  // one rule each, worded the same in every note that gives it
  'rule.reply':
    "**Answer in the ❓ question's thread**: reply there, no `/agent` needed; the run goes on with your answer.",

  // whose problem a failure is (errors/errors.ts ErrorBlame)
  'blame.user': 'This needs a fix in the request or in the project’s mr-agent settings.',
  'blame.service':
    'This is not caused by your code: a service the agent depends on (GitLab or the model endpoint) failed. Ask a maintainer to check it.',
  'blame.model': 'The model did not give a usable answer; a retry or a stronger model may help.',
  'blame.command': 'A command failed in a way the run could not get past.',
  'blame.limit': 'A configured limit was reached.',
  'blame.internal': 'This looks like a bug in mr-agent; please report it with the job log.',
  'blame.hint': 'Hint: {hint}',

  // the body of the progress note
  'result.none': 'No summary was given.',
  'plan.revised': {
    one: '🔁 Plan revised once, last because: {reason}',
    other: '🔁 Plan revised {count} times, last because: {reason}',
  },
  'plan.reasonMissing': 'no reason given',
  'item.inProgress': 'in progress',
  'item.failed': 'failed',
  'item.stopped': 'stopped here',
  'item.skipped': 'skipped',
  'item.reviewFeedback': "Address the execution review's feedback: {feedback}",
  'item.reviewFeedbackNone': "Address the execution review's feedback",
  'criteria.heading': 'Acceptance criteria',
  'criteria.met': '{met}/{total} met',
  'review.suggestion': 'Reviewer suggestion:',
  'notice.commandsRefused':
    "Repository commands (setup, tests, run_command) were not run: {reason}, so a command could read the job's secrets. Run mr-agent as root in the runner image (commands then run as an unprivileged user), or set `security.isolation: accept-risk` to run them anyway.",
  'notice.forkPatch':
    "This merge request comes from a fork, so the fork's code was not run (no setup, install scripts, tests or commands) and cannot reach this project's CI/CD secrets; the change comes as a patch. A Maintainer can opt in with `trigger.forks: run` (see docs/security.md).",
  'notice.userSettingsRefused':
    "The user-config API's answer was not applied for {keys}: it may set the requesting user's own model, reasoning effort, temperature and planning choices only (see docs/security.md).",
  'notice.forkProtectedRef':
    "This merge request comes from a fork and `trigger.forks` is `run`, but this pipeline runs on the protected ref {ref}, so the fork's code was not run; start it through the webhook bridge, which runs it on the merge request's own ref.",
  'notice.gitlabTokenScopes':
    "This GitLab ({found}) cannot show a token's scopes (GitLab {minimum} or newer can), so the token's `api` scope was not checked before the run; a token without it fails at its first write.",
  'notice.gitlabTriggerInputs':
    'This GitLab ({found}) takes no pipeline inputs through the trigger API (GitLab {minimum} or newer does), so the webhook bridge passes requests as pipeline variables, which "Minimum role to use pipeline variables" must allow for the trigger token\'s owner.',

  // the folded run details
  'details.summary': 'Run details',
  'details.phases': { one: '1 phase', other: '{count} phases' },
  'details.environment': '{name} environment',
  'details.calls': { one: '1 model call', other: '{count} model calls' },
  'details.tokens': { one: '1 token', other: '{count} tokens' },
  'details.skipped': '{phases} skipped',
  'details.repeated': '×{count}',
  'env.setupCommands': { one: '1 setup command', other: '{count} setup commands' },
  'env.checks': '{passed}/{total} checks',
  'env.setupFailed': 'setup failed, continued with warnings',
  'env.setupSkipped': 'setup skipped',
  'env.olderNode': 'tests on Node {major} (none ran on Node {current})',
  'punct.comma': ', ',
  'punct.aside': ' ({text})',
  'review.column.review': 'Review',
  'review.column.verdict': 'Verdict',
  'review.column.feedback': 'Feedback',
  'review.subject.planning': 'Plan',
  'review.subject.execution': 'Change',
  'review.verdict.PASS': 'Pass',
  'review.verdict.PASS_WITH_SUGGESTIONS': 'Pass with suggestions',
  'review.verdict.FAIL': 'Changes requested',
  'review.attempt': 'review {attempt} of {max}',
  'usage.column.group': 'Model calls',
  'usage.column.calls': 'Calls',
  'usage.column.tokens': 'Tokens',
  'usage.group.execution': 'execution',
  'usage.group.planning': 'planning & replanning',
  'usage.group.reviews': 'reviews & checks',
  'usage.group.other': 'other',
  'usage.total': 'Total',
  'usage.cost': 'Estimated cost: {cost}',
  'history.heading': 'Earlier plans',
  'history.original': 'Original plan, {time}',
  'history.revision': 'Revision {number}, {time}',
  'history.replacedBecause': 'Replaced because: {reason}',
  'links.taskNote': 'Task Note',
  'links.startedAt': 'started {time}',
  'diagram.revise': 'revise',
  'footer.live': 'mr-agent · edited in place',
  'footer.final': 'mr-agent · final',
  'footer.job': 'job {job}',
  'footer.local': 'local run',

  'replan.kind.retry': 'retry the step',
  'replan.kind.partial_replan': 're-plan the remaining steps',
  'replan.kind.action_regeneration': 'regenerate the actions',
  'replan.kind.task_redecomposition': 'split the task again',
  'replan.kind.goal_revision': 'revisit the goal',
  'replan.kind.full_replan': 'plan again from scratch',
  'replan.kind.clarification_request': 'ask the people on the request',
  // replans' start, completion and failure in the progress note's history
  'replanLog.heading': 'Replans',
  'replanLog.started': '{time} · started at {point}: {kind}',
  'replanLog.startedAt': '{time} · started at {point}',
  'replanLog.completed': '{time} · completed in {duration}: the run went on with the revised plan',
  'replanLog.failed':
    '{time} · failed after {duration}: the run ended before the revised plan reached its next step',

  // the `/agent help` reply (one `help.<verb>` line per verb of src/commands/verbs.ts) and the answers to `/agent pause`
  'help.heading': 'mr-agent commands',
  'help.where': 'Write a command at the start of a comment line, outside code and quotes.',
  'help.run': 'make the change you describe and push it here',
  'help.plan': 'post a plan only; change nothing',
  'help.approve': 'carry out the plan posted by {plan}, as written',
  'help.retry': 'run the last task again, with its history',
  'help.status': 'show the state of the last run',
  'help.stop': 'cancel the running agent pipeline',
  'help.pause': 'pause the running agent after its current step',
  'help.resume': 'carry on a paused run',
  'help.continue':
    "go on after a budget stop from the run's checkpoint; `+$X` raises `budget.max_usd` by X for that run",
  'pause.asked':
    'The run will pause after its current step ({note}). Comment {resume} to carry on.',
  'pause.noNote':
    'The run has not posted its progress note yet, so it cannot be asked to pause. Try again in a moment, or cancel it with {stop}.',
  'pause.nothing': 'No agent run is active here; nothing to pause.',
  'pause.progressNote': 'progress note',
  'help.help': 'show this list',
  'help.review':
    'review this merge request: findings as threads on the changed lines, with suggestions',
  'help.address-reviews':
    "address this merge request's open review threads in one commit, each answered in its thread (resolved when addressed)",
  'help.instruction': '<instruction>',
  'conversation.noted': 'Noted — {what}',
  'conversation.notedGeneric': 'Noted — I will take this into account for the rest of this run.',
  'conversation.stopBeforeDelivery': 'I will stop before pushing and keep the change as a patch.',
  'conversation.runEnded':
    'The run has ended before it could read this. Comment again to start a follow-up run that continues from it.',
  'conversation.stopReason': '@{user} asked the run to stop before pushing',
  // a replan the model asked for but a limit stopped, in the progress note's history
  'replanLog.notCarriedOut': '{time} · at {point}, “{kind}” was not carried out: {why}; {then}',
  'replanLog.notCarriedOutAt': '{time} · at {point}, a replan was not carried out: {why}; {then}',
  'replanWhy.phase_limit': 'its limit is reached ({used} of {limit}, {option})',
  'replanWhy.total_limit': 'the limit on all replans is reached ({used} of {limit}, {option})',
  'replanWhy.loop': 'the same replan already ran {used} times ({option})',
  'replanWhy.other': 'a limit stopped it',
  'replanThen.continue': 'the run went on with the current plan',
  'replanThen.stop': 'the run stopped to wait for instructions',
  'replanThen.alternative': 'it chose instead to {replan}',
  // one checklist item per step, carrying its retries
  'item.failedTimes': { one: 'failed once', other: 'failed {count}×' },
  'item.doneAfter': { one: 'failed once, then done', other: 'failed {count}×, then done' },
  'item.retrying': { one: 'failed once, trying again', other: 'failed {count}×, trying again' },
  'item.runningAfter': {
    one: 'in progress, after 1 failed try',
    other: 'in progress, after {count} failed tries',
  },
  'history.older': { one: '1 earlier plan not shown', other: '{count} earlier plans not shown' },
  'plan.reason.review': 'the execution review asked for changes',
  // a service's refusal blamed by its HTTP status
  'service.llm': 'The model endpoint',
  'service.gitlab': 'GitLab',
  'blame.keyRefused': '{service} refused the key (HTTP {status}): {check}.',
  'blame.tokenRefused': '{service} refused the token (HTTP {status}): {check}.',
  'blame.checkVariable': 'check the key in {variable}',
  'blame.checkLlmKey': 'check the model key (`llm.api_key_variable`)',
  'blame.checkGitlabToken': 'check the GitLab token',
  'blame.rateLimited': '{service} limited the rate of requests (HTTP 429): {wait}.',
  'blame.waitFor': 'wait {wait}, then try again',
  'blame.waitAWhile': 'wait a few minutes, then try again',
  // asking whether to replan when the model is unsure
  'confirm.question':
    'I am not sure whether to {replan} (confidence {confidence}). Should I? Reply "yes" to do it; any other answer keeps the current plan.',
  'confirm.keep': 'the current plan is kept',
  'facts.failedSteps': {
    one: '1 step failed, but the final check found the request done',
    other: '{count} steps failed, but the final check found the request done',
  },
} as const satisfies Record<string, Message>;

export type MessageKey = keyof typeof en;
