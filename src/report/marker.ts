/**
 * The hidden marker at the top of every note mr-agent posts. It lets a later
 * run find its own notes again (with the bot user id) and names the job whose
 * artifacts hold the run's history.
 *
 *   <!-- mr-agent:progress job=123 pipeline=45 task=abc state=running phase=execution done=2 total=5 -->
 *
 * The fields are language-neutral, so `/agent status` reads a run's state,
 * phase and progress whatever language its notes are written in. A reader
 * ignores fields it does not know, and older markers simply lack the newer ones.
 */
export type NoteKind =
  | 'progress'
  | 'environment-failed'
  | 'replan'
  | 'clarification'
  | 'human-intervention'
  | 'summary'
  | 'patch'
  | 'reply';

export interface NoteMarker {
  kind: NoteKind;
  /** CI job id whose artifacts hold `.mr-agent/` (absent for local runs). */
  job?: string;
  pipeline?: string;
  task?: string;
  /** The run's state when the note was last written (progress notes). */
  state?: string;
  /** The phase running when the progress note was last written (`execution`). */
  phase?: string;
  /** Plan steps done and in all, when the run has a plan (progress notes). */
  done?: string;
  total?: string;
  /** The ❓ note a paused run waits on (its note id; progress notes). */
  question?: string;
  /** USD the run spent so far, when its model has prices (progress notes; the MR budget sums them). */
  usd?: string;
}

/** The marker's fields after the kind, in the order they are written; older markers lack the last ones. */
const FIELDS = [
  'job',
  'pipeline',
  'task',
  'state',
  'phase',
  'done',
  'total',
  'question',
  'usd',
] as const;
type Field = (typeof FIELDS)[number];

const PREFIX = '<!-- mr-agent:';
const MARKER_RE = /<!-- mr-agent:([a-z-]+)((?: [a-z]+=[A-Za-z0-9._:-]*)*) -->/;
const SAFE_VALUE = /[^A-Za-z0-9._:-]/g;

export function renderMarker(marker: NoteMarker): string {
  const fields = FIELDS.filter((k) => marker[k] !== undefined && marker[k] !== '')
    .map((k) => ` ${k}=${String(marker[k]).replace(SAFE_VALUE, '_')}`)
    .join('');
  return `${PREFIX}${marker.kind}${fields} -->`;
}

export function parseMarker(body: string): NoteMarker | undefined {
  const match = MARKER_RE.exec(body.slice(0, 400));
  if (!match) return undefined;
  const marker: NoteMarker = { kind: match[1] as NoteKind };
  for (const pair of match[2]!.trim().split(' ').filter(Boolean)) {
    const [key, value] = pair.split('=') as [string, string];
    if ((FIELDS as readonly string[]).includes(key)) marker[key as Field] = value;
  }
  return marker;
}
