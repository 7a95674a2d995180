/**
 * The one emoji vocabulary of every note: each emoji has one meaning
 * (docs/notes.md lists them). Renderers take their emoji from here only.
 */
export const EMOJI = {
  /** a run in progress */
  running: '⏳',
  /** done, passed, met */
  done: '✅',
  /** failed, not met */
  failed: '❌',
  /** cancelled: someone or something stopped the run */
  cancelled: '🛑',
  /** a warning: something went wrong but the run went on, or its end is unknown */
  warning: '⚠️',
  /** a question waiting for an answer */
  question: '❓',
  /** a person is needed */
  human: '🙋',
  /** a reviewer's suggestion */
  suggestion: '💡',
  /** the plan was revised */
  revised: '🔁',
  /** skipped, or going on without an answer */
  skipped: '⏭️',
  /** a patch to apply by hand */
  patch: '🩹',
  /** paused on request, resumable */
  paused: '⏸️',
} as const;

export type NoteState =
  | 'running'
  | 'complete'
  | 'failed'
  | 'cancelled'
  | 'interrupted'
  | 'awaiting_answer'
  | 'needs_human'
  | 'paused'
  | 'budget_exhausted';

/** The emoji that opens a note in each state. */
export const STATE_EMOJI: Readonly<Record<NoteState, string>> = {
  running: EMOJI.running,
  complete: EMOJI.done,
  failed: EMOJI.failed,
  cancelled: EMOJI.cancelled,
  interrupted: EMOJI.warning,
  awaiting_answer: EMOJI.question,
  needs_human: EMOJI.human,
  paused: EMOJI.paused,
  budget_exhausted: EMOJI.paused,
};
