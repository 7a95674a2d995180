import type { MessageKey } from '../messages/catalog.ts';

/**
 * The comment commands, one row each: how the parser reads a verb, who
 * carries it out and what the job does with it. Everything else about a verb
 * follows from its row — the parser (parse.ts), the help reply (`help.<verb>`
 * in the catalog, listed in this order), the bridge's dispatch (dispatch.ts:
 * a run starts a pipeline, an answer needs its handler there), the job's
 * handling (src/ci/carry-out.ts) and the table in docs/triggers.md, which
 * test/commands/verbs.test.ts checks against this one.
 */

/**
 * How the words after the verb are read.
 * - `implicit`: no verb word; a command that is no other verb is this one.
 * - `instruction`: the rest of the comment is the verb's instruction.
 * - `alone`: a verb only when nothing else follows on its line, so
 *   `/agent stop the retry loop from spinning` is an ordinary instruction.
 * - `amount`: like `alone`, but a USD amount `+$X` may follow (`/agent continue +$2`).
 */
export type VerbSyntax = 'implicit' | 'instruction' | 'alone' | 'amount';

/** What the job does with a verb that starts a run. */
export interface JobPlan {
  /**
   * `instruction`: the text after the command; `last-request`: the last run's
   * on this MR or issue; `review-threads`: the merge request's unresolved diff
   * threads opened by people who may command the agent, each answered in its
   * thread at the end.
   */
  task: 'instruction' | 'last-request' | 'review-threads';
  /** Fail when there is no earlier run to take the task from. */
  needsEarlierRun: boolean;
  /**
   * `run`: the whole run; `plan-only`: stop after the plan; `approved-plan`:
   * carry out the posted plan; `review-only`: review the merge request's
   * change as threads on its diff lines, nothing executed or delivered.
   */
  mode: 'run' | 'plan-only' | 'approved-plan' | 'review-only';
  /** Go on from the newest checkpoint of the merge request or issue (a fresh plan when there is none). */
  fromCheckpoint?: true;
}

export interface VerbRow {
  syntax: VerbSyntax;
  /**
   * `run`: a pipeline run, which the job carries out by `job`; `answer`: the
   * bridge (or the job that claims the comment) replies in the thread itself.
   */
  handling: { kind: 'run'; job: JobPlan } | { kind: 'answer' };
  /** Placeholders of the verb's help line that name another verb (`{plan}` → `/agent plan`). */
  helpMentions?: Readonly<Record<string, string>>;
}

export const VERBS = {
  run: {
    syntax: 'implicit',
    handling: { kind: 'run', job: { task: 'instruction', needsEarlierRun: false, mode: 'run' } },
  },
  plan: {
    syntax: 'instruction',
    handling: {
      kind: 'run',
      job: { task: 'instruction', needsEarlierRun: false, mode: 'plan-only' },
    },
  },
  approve: {
    syntax: 'alone',
    handling: {
      kind: 'run',
      job: { task: 'last-request', needsEarlierRun: false, mode: 'approved-plan' },
    },
    helpMentions: { plan: 'plan' },
  },
  retry: {
    syntax: 'alone',
    handling: {
      kind: 'run',
      job: { task: 'last-request', needsEarlierRun: true, mode: 'run', fromCheckpoint: true },
    },
  },
  status: { syntax: 'alone', handling: { kind: 'answer' } },
  pause: { syntax: 'alone', handling: { kind: 'answer' } },
  // retry's plan: the paused state comes back with the earlier `.mr-agent/`
  // (src/ci/past-history.ts), and the replan hook reads the answers in the
  // thread. A reply below a paused ❓ question is a `resume` too (resume.ts).
  resume: {
    syntax: 'alone',
    handling: { kind: 'run', job: { task: 'last-request', needsEarlierRun: true, mode: 'run' } },
  },
  stop: { syntax: 'alone', handling: { kind: 'answer' } },
  help: { syntax: 'alone', handling: { kind: 'answer' } },
  // the instruction is the review's focus, and may be empty
  review: {
    syntax: 'instruction',
    handling: {
      kind: 'run',
      job: { task: 'instruction', needsEarlierRun: false, mode: 'review-only' },
    },
  },
  // after a budget stop: the checkpoint's plan and change, `+$X` more of budget.max_usd
  continue: {
    syntax: 'amount',
    handling: {
      kind: 'run',
      job: { task: 'last-request', needsEarlierRun: true, mode: 'run', fromCheckpoint: true },
    },
  },
  // one run, one commit for every open review thread; `/agent` inside a diff thread is a `run` for that thread
  'address-reviews': {
    syntax: 'alone',
    handling: {
      kind: 'run',
      job: { task: 'review-threads', needsEarlierRun: false, mode: 'run' },
    },
  },
} as const satisfies Record<string, VerbRow>;

export type Verb = keyof typeof VERBS;

/** The verbs that start a pipeline run. */
export type RunVerb = {
  [V in Verb]: (typeof VERBS)[V]['handling'] extends { kind: 'run' } ? V : never;
}[Verb];

/** The verbs the bridge (or the claiming job) answers in the thread; each has a handler in dispatch.ts. */
export type AnsweredVerb = Exclude<Verb, RunVerb>;

/** A catalog key; a verb without its `help.<verb>` line in the catalog is a type error below. */
type CatalogKey<K extends MessageKey> = K;
export type HelpKey = CatalogKey<`help.${Verb}`>;

/** The verbs in the order of the help reply. */
export const VERB_NAMES = Object.keys(VERBS) as Verb[];

export function isVerb(word: string): word is Verb {
  return Object.hasOwn(VERBS, word);
}

export function verbRow(verb: Verb): VerbRow {
  return VERBS[verb];
}

export function isRunVerb(verb: Verb): verb is RunVerb {
  return verbRow(verb).handling.kind === 'run';
}

/** What the job does with `word`; undefined for a verb the job never carries out, or no verb. */
export function jobPlanOf(word: string): JobPlan | undefined {
  if (!isVerb(word)) return undefined;
  const handling = verbRow(word).handling;
  return handling.kind === 'run' ? handling.job : undefined;
}

/** The verbs that start a run, in the table's order. */
export const RUN_VERBS: readonly RunVerb[] = VERB_NAMES.filter(isRunVerb);
