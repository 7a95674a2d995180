/**
 * The top of the progress note and of the summary note: a
 * heading with the state, then the change line (what was pushed, checks,
 * job link), then **Next:** — what the reader does now. Built from
 * `ProgressState` and its `facts` only, so both notes say the same thing.
 */
import { messages, type MessageBlock, type Translate } from '../../messages/catalog.ts';
import type { MessageKey } from '../../messages/en.ts';
import { formatClockTime, formatCost, formatCount, formatDuration } from '../../messages/format.ts';
import type { Language } from '../../messages/language.ts';
import type {
  CancelCause,
  CheckFact,
  ErrorFacts,
  PhaseName,
  ProgressState,
} from '../../core/progress/model.ts';
import { PHASES } from '../../core/progress/model.ts';
import { inlineCode, link, oneLine, safeProse } from '../markdown.ts';
import { EMOJI, STATE_EMOJI, type NoteState } from '../vocabulary.ts';
import { causeText, hintText } from './error-words.ts';
import { checklistProgress, currentPhase } from '../../core/progress/updates.ts';

/**
 * What the notes need besides the state: the language's texts (the shared
 * catalog's, and a note kind's own block when it has one) and the command prefix.
 */
export interface Voice<K extends string = never> {
  language: Language;
  m: Translate<K>;
  /** `/agent <rest>` as inline code. */
  command(rest: string): string;
  /** Sentences joined as the language does (a space in English, none in Japanese). */
  sentences(...parts: string[]): string;
}

export function voiceOf<K extends string = never>(
  s: Pick<ProgressState, 'language' | 'commandPrefix'>,
  block?: MessageBlock<K>,
): Voice<K> {
  const language = s.language ?? 'en';
  const prefix = s.commandPrefix ?? '/agent';
  const gap = language === 'ja' ? '' : ' ';
  return {
    language,
    m: messages(language, block),
    command: (rest) => inlineCode(`${prefix} ${rest}`),
    sentences: (...parts) => parts.filter(Boolean).join(gap),
  };
}

export function noteState(s: ProgressState): NoteState {
  return s.final?.state ?? 'running';
}

export function phaseName(v: Voice, phase: PhaseName): string {
  return v.m(`phase.${phase}` as MessageKey);
}

export function shortSha(sha: string): string {
  return sha.slice(0, 8);
}

/** `### ✅ Done · <title>`. */
export function heading(s: ProgressState, v: Voice): string {
  const state = noteState(s);
  const title = oneLine(safeProse(s.title), 200) || s.taskId;
  return `### ${STATE_EMOJI[state]} ${v.m(`state.${state}` as MessageKey)} · ${title}`;
}

function jobLink(s: ProgressState, v: Voice): string[] {
  return s.jobUrl ? [link(v.m('facts.viewJob', { id: s.jobId ?? '?' }), s.jobUrl)] : [];
}

function steps(s: ProgressState, v: Voice): string[] {
  if (!s.plan || s.plan.current.items.length === 0) return [];
  const { done, total } = checklistProgress(s.plan.current.items);
  return [v.m('facts.steps', { done, total })];
}

/**
 * Steps that failed for good in a run that still ended done: said next to
 * the ✅, with why it is done anyway, so a ✅ never sits over ❌ unexplained.
 */
function failedSteps(s: ProgressState, v: Voice): string[] {
  const items = s.plan?.current.items ?? [];
  const failed = items.filter(
    (item, index) => item.status === 'failed' && items[index + 1]?.description !== item.description,
  ).length;
  return failed > 0 ? [`${EMOJI.warning} ${v.m('facts.failedSteps', { count: failed })}`] : [];
}

/** The last run of each check command, at most three. */
function checks(list: readonly CheckFact[], v: Voice): string[] {
  const last = new Map(list.map((c) => [c.command, c]));
  return [...last.values()].slice(-3).map((c) => {
    const mark = c.passed ? EMOJI.done : EMOJI.failed;
    const timedOut = c.timedOut ? ` (${v.m('facts.timedOut')})` : '';
    return `${inlineCode(oneLine(c.command, 80))} ${mark}${timedOut}`;
  });
}

/** Whether, and what, the run pushed. */
export function deliveryFact(s: ProgressState, v: Voice): string {
  const d = s.facts?.delivery;
  if (!s.final) return v.m('facts.nothingPushedYet');
  if (!d) return v.m('facts.nothingPushed');
  switch (d.status) {
    case 'pushed': {
      const branch = inlineCode(d.branch ?? '?');
      const text = v.m('facts.pushed', { commit: shortSha(d.commit ?? '?'), branch });
      return d.mergeRequestUrl
        ? `${text} · ${link(v.m('facts.mergeRequest'), d.mergeRequestUrl)}`
        : text;
    }
    case 'pushed-elsewhere': {
      const text = v.m('facts.pushedElsewhere', {
        commit: shortSha(d.commit ?? '?'),
        branch: inlineCode(d.branch ?? '?'),
        intended: inlineCode(d.intendedBranch ?? '?'),
        reason: oneLine(safeProse(d.notPushedReason ?? '?'), 200),
      });
      return d.mergeRequestUrl
        ? `${text} · ${link(v.m('facts.mergeRequest'), d.mergeRequestUrl)}`
        : text;
    }
    case 'no-changes':
      return v.m('facts.noChanges');
    case 'disabled':
      return v.m('facts.pushDisabled');
    case 'patch-posted':
      return d.patchNoteUrl
        ? v.m('facts.patchPosted', { patch: link(v.m('facts.patchNote'), d.patchNoteUrl) })
        : v.m('facts.notPushed', { reason: oneLine(safeProse(d.notPushedReason ?? '?'), 200) });
  }
}

/** The phase the run stopped in (not the closing `complete` step). */
export function stoppedIn(s: ProgressState): PhaseName | undefined {
  return [...PHASES].reverse().find((p) => p !== 'complete' && s.phases[p].state === 'failed');
}

/** Who or what stopped a cancelled run, in the note's words. */
function cancelledBy(cause: CancelCause, v: Voice): string {
  switch (cause.kind) {
    case 'stop-command':
      return v.m('cancel.stopCommand', { command: v.command('stop'), user: cause.by });
    case 'gitlab-cancel':
      return v.m('cancel.gitlab');
    case 'timeout':
      return v.m('cancel.timeout', {
        limit: formatDuration(cause.limitSeconds * 1000, v.language),
      });
    case 'signal':
      return v.m('cancel.signal', { signal: inlineCode(cause.signal) });
  }
}

function stopped(s: ProgressState, v: Voice): string {
  const cause = s.cancelledBy;
  // without the run's facts or cause (the process gave up in its grace period) the end's own words tell
  const said = s.facts || cause ? '' : oneLine(safeProse(s.final?.summary ?? ''), 200);
  const by = cause ? cancelledBy(cause, v) : said || v.m('cancel.unknown');
  const who = s.gaveUpAfterGrace ? v.m('cancel.graceOver', { who: by }) : by;
  const phase = stoppedIn(s);
  return phase
    ? v.m('facts.stoppedDuring', { phase: phaseName(v, phase), who })
    : v.m('facts.stopped', { who });
}

function paused(s: ProgressState, v: Voice): string {
  const phase = stoppedIn(s);
  return phase
    ? v.m('facts.pausedDuring', { phase: phaseName(v, phase), command: v.command('pause') })
    : v.m('facts.paused', { command: v.command('pause') });
}

function questions(s: ProgressState, v: Voice): string {
  const count = Math.max(1, s.facts?.questions ?? 1);
  const label = v.m('facts.questionsLink', { count });
  const url = s.related?.question;
  return v.m('facts.questions', { count, link: url ? link(label, url) : label });
}

function humanReason(s: ProgressState, v: Voice): string {
  const count = s.facts?.revisionsUsed ?? 0;
  return count > 0 ? v.m('facts.humanReason', { count }) : v.m('facts.humanReasonNone');
}

function cause(s: ProgressState, v: Voice): string {
  const error = s.facts?.error?.message;
  return causeText(error ?? s.final?.summary ?? '', v, error !== undefined);
}

/** The second line: what changed (or why nothing did), then the job link. */
export function changeLine(s: ProgressState, v: Voice): string {
  const state = noteState(s);
  const parts: string[] = [];
  const files = s.facts?.changedFiles.length ?? 0;
  switch (state) {
    case 'running': {
      const phase = currentPhase(s);
      // a running phase's remark (e.g. `3/5 actions`) goes with it
      const detail = phase ? s.phases[phase].detail : undefined;
      const remark = detail ? `: ${oneLine(safeProse(detail), 120)}` : '';
      if (phase) parts.push(`${v.m('facts.now', { phase: phaseName(v, phase) })}${remark}`);
      parts.push(...steps(s, v), deliveryFact(s, v));
      parts.push(v.m('facts.started', { time: formatClockTime(s.startedAt, v.language) }));
      break;
    }
    case 'complete':
      parts.push(deliveryFact(s, v), ...failedSteps(s, v));
      if (files > 0) parts.push(v.m('facts.files', { count: files }));
      parts.push(...checks(s.facts?.checks ?? [], v));
      parts.push(formatDuration(s.final!.finishedAt - s.startedAt, v.language));
      break;
    case 'failed':
      parts.push(cause(s, v), deliveryFact(s, v), ...steps(s, v));
      break;
    case 'cancelled':
      parts.push(stopped(s, v), deliveryFact(s, v), ...steps(s, v));
      break;
    case 'paused':
      parts.push(paused(s, v), deliveryFact(s, v), ...steps(s, v));
      break;
    case 'budget_exhausted':
      parts.push(
        v.m('facts.budgetStopped', { limit: inlineCode(budgetKey(s)) }),
        deliveryFact(s, v),
        ...steps(s, v),
      );
      break;
    case 'awaiting_answer':
      parts.push(questions(s, v), deliveryFact(s, v), ...steps(s, v));
      break;
    case 'needs_human':
      parts.push(humanReason(s, v), deliveryFact(s, v), ...steps(s, v));
      break;
    case 'interrupted':
      parts.push(v.m('facts.interrupted'));
      break;
  }
  return [...parts, ...budgetFacts(s, v), ...jobLink(s, v)].join(' · ');
}

const BUDGET_VARIABLES: Record<string, string> = {
  'budget.max_usd': 'MR_AGENT_BUDGET_USD',
  'budget.max_tokens': 'MR_AGENT_BUDGET_TOKENS',
  'budget.mr_max_usd': 'MR_AGENT_MR_BUDGET_USD',
};

/** The budget key the run stopped at. */
function budgetKey(s: ProgressState): string {
  return `budget.${s.budget?.stoppedBy ?? 'max_tokens'}`;
}

/** Spend against each limit set: `$0.42 of $2.00`, tokens, the merge request's total. */
function budgetFacts(s: ProgressState, v: Voice): string[] {
  const b = s.budget;
  if (!b) return [];
  const facts: string[] = [];
  if (b.limitUsd !== undefined && b.priced)
    facts.push(
      v.m('budget.spend', {
        spent: formatCost(b.spentUsd, v.language),
        limit: formatCost(b.limitUsd, v.language),
      }),
    );
  if (b.limitTokens !== undefined)
    facts.push(
      v.m('budget.spendTokens', {
        spent: formatCount(b.spentTokens, v.language),
        limit: formatCount(b.limitTokens, v.language),
      }),
    );
  if (b.mrLimitUsd !== undefined && b.priced)
    facts.push(
      v.m('budget.spendMr', {
        spent: formatCost(b.mrSpentUsd ?? 0, v.language),
        limit: formatCost(b.mrLimitUsd, v.language),
      }),
    );
  return facts;
}

function afterComplete(s: ProgressState, v: Voice): string {
  const d = s.facts?.delivery;
  const followUp = v.m('next.followUp', { command: v.command(v.m('help.instruction')) });
  if (s.facts?.reviewOnly) return v.m('next.reviewThreads', { review: v.command('review') });
  if (!d) return v.m('next.local');
  switch (d.status) {
    case 'pushed':
    case 'pushed-elsewhere': {
      if (d.mergeRequestUrl)
        return v.sentences(
          v.m('next.reviewMergeRequest', {
            mr: link(v.m('facts.mergeRequest'), d.mergeRequestUrl),
          }),
          followUp,
        );
      const commit = d.commitUrl
        ? link(v.m('next.theCommit'), d.commitUrl)
        : `${v.m('next.theCommit')} ${shortSha(d.commit ?? '')}`;
      return v.sentences(v.m('next.reviewCommit', { commit }), followUp);
    }
    case 'patch-posted':
      return v.m('next.applyPatch', {
        patch: d.patchNoteUrl
          ? link(v.m('facts.patchNote'), d.patchNoteUrl)
          : v.m('facts.patchNote'),
      });
    case 'no-changes':
      return v.m('next.noChanges', { command: v.command(v.m('help.instruction')) });
    case 'disabled':
      return v.m('next.pushDisabled');
  }
}

const BLAMES = new Set(['user', 'service', 'model', 'command', 'limit', 'internal']);

/**
 * A service's answer that says what to do by its status: a refused key or
 * token (401, 403) names the variable to check, a rate limit (429) the wait.
 */
function statusBlame(error: ErrorFacts, v: Voice): string | undefined {
  if (error.blame !== 'service' || error.status === undefined) return undefined;
  const service = v.m(error.service === 'gitlab' ? 'service.gitlab' : 'service.llm');
  const status = error.status;
  if (status === 401 || status === 403) {
    const gitlab = error.service === 'gitlab';
    const check = error.credential
      ? v.m('blame.checkVariable', { variable: inlineCode(error.credential) })
      : v.m(gitlab ? 'blame.checkGitlabToken' : 'blame.checkLlmKey');
    return v.m(gitlab ? 'blame.tokenRefused' : 'blame.keyRefused', { service, status, check });
  }
  if (status === 429) {
    const wait =
      error.retryAfterMs !== undefined
        ? v.m('blame.waitFor', { wait: formatDuration(error.retryAfterMs, v.language) })
        : v.m('blame.waitAWhile');
    return v.m('blame.rateLimited', { service, wait });
  }
  return undefined;
}

/** Whose problem it is and what to do (src/errors: blame and hint), then how to retry. */
function afterFailure(s: ProgressState, v: Voice): string {
  const error = s.facts?.error;
  const parts: string[] = [];
  const byStatus = error ? statusBlame(error, v) : undefined;
  if (byStatus) parts.push(byStatus);
  else if (error) {
    const blame = BLAMES.has(error.blame) ? error.blame : 'internal';
    parts.push(v.m(`blame.${blame}` as MessageKey));
    const hint = hintText(error, v);
    if (hint) parts.push(v.m('blame.hint', { hint }));
  }
  const retry = s.jobUrl
    ? link(v.m('next.retryJob', { id: s.jobId ?? '?' }), s.jobUrl)
    : v.command('retry');
  parts.push(v.m('next.retry', { retry, command: v.command(v.m('help.instruction')) }));
  return v.sentences(...parts);
}

/** The third line: **Next:** and the one thing to do now. */
export function nextLine(s: ProgressState, v: Voice): string {
  const instruction = v.command(v.m('help.instruction'));
  const text = ((): string => {
    switch (noteState(s)) {
      case 'running':
        return v.m('next.running', { stop: v.command('stop') });
      case 'complete':
        return afterComplete(s, v);
      case 'failed':
        return afterFailure(s, v);
      case 'cancelled': {
        const cause = s.cancelledBy;
        if (cause?.kind === 'timeout')
          return v.m('next.timedOut', {
            limit: formatDuration(cause.limitSeconds * 1000, v.language),
            retry: v.command('retry'),
          });
        return v.m('next.cancelled', { retry: v.command('retry'), command: instruction });
      }
      case 'interrupted':
        return v.m('next.interrupted', { retry: v.command('retry') });
      case 'awaiting_answer': {
        const url = s.related?.question;
        return url
          ? `${v.m('rule.reply')} ${link(v.m('next.openQuestion'), url)}`
          : v.m('rule.reply');
      }
      case 'paused':
        return v.m('next.paused', { resume: v.command('resume') });
      case 'budget_exhausted': {
        const key = budgetKey(s);
        return v.m('next.budget', {
          limit: inlineCode(key),
          variable: inlineCode(BUDGET_VARIABLES[key] ?? key),
          resume: v.command('continue'),
        });
      }
      case 'needs_human': {
        const url = s.related?.['human-help'];
        const note = url ? link(v.m('next.humanNote'), url) : v.m('next.humanNote');
        return v.m('next.needsHuman', { note, command: instruction });
      }
    }
  })();
  return `**${v.m('next.label')}** ${text}`;
}

/** Heading, change line and next step, as separate paragraphs. */
export function headline(s: ProgressState, v: Voice): string[] {
  return [heading(s, v), '', changeLine(s, v), '', nextLine(s, v)];
}
