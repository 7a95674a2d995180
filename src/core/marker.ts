/**
 * The hidden marker at the top of every note mr-agent posts. It lets a later
 * run find its own notes again (with the bot user id) and names the job whose
 * artifacts hold the run's history (SPEC H1, I2).
 *
 *   <!-- mr-agent:progress job=123 pipeline=45 task=abc state=running -->
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
}

const PREFIX = '<!-- mr-agent:';
const MARKER_RE = /<!-- mr-agent:([a-z-]+)((?: [a-z]+=[A-Za-z0-9._:-]*)*) -->/;
const SAFE_VALUE = /[^A-Za-z0-9._:-]/g;

export function renderMarker(marker: NoteMarker): string {
  const fields = (['job', 'pipeline', 'task', 'state'] as const)
    .filter((k) => marker[k] !== undefined && marker[k] !== '')
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
    if (key === 'job' || key === 'pipeline' || key === 'task' || key === 'state')
      marker[key] = value;
  }
  return marker;
}
