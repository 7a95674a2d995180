import type { Redactor } from '../../log/redact.ts';
import { renderMarker, type NoteMarker } from '../../core/marker.ts';
import type { Classification } from './classify.ts';
import { fence } from '../../core/text.ts';
import type { RetryCounts } from './run-command.ts';
import type { EnvironmentName } from '../../core/environment.ts';

export interface FailureNoteInput {
  environment: EnvironmentName;
  /** The failing command and what it printed (already cut to a tail). */
  command: string;
  exitCode: number | undefined;
  output: string;
  classification: Classification;
  retries: RetryCounts;
  regenerations: number;
  maxRegenerations: number;
  /** Why the loop stopped (e.g. "regenerations used up"), when not obvious from the class. */
  stopReason?: string;
  marker?: Omit<NoteMarker, 'kind'>;
  redactor?: Redactor;
}

const MAX_ERROR_CHARS = 4000;

function errorText(input: FailureNoteInput): string {
  const code =
    input.exitCode === undefined ? 'did not exit normally' : `exited with code ${input.exitCode}`;
  const output = input.output.trim();
  const evidence = input.classification.evidence;
  const body = output.includes(evidence) ? output : [evidence, output].filter(Boolean).join('\n\n');
  const text = `$ ${input.command}\n(${code})\n\n${body}`;
  return text.length > MAX_ERROR_CHARS ? `…${text.slice(-MAX_ERROR_CHARS)}` : text;
}

/**
 * The "environment setup failed" note (seed 000 §5.3.9, in English): status,
 * environment, the error, what was tried (retries by kind, regenerations
 * n/max, classification). Secrets are masked; the output is fenced so it
 * cannot break the markdown.
 */
export function renderFailureNote(input: FailureNoteInput): string {
  const c = input.classification;
  const redact = (text: string) => (input.redactor ? input.redactor.redact(text) : text);
  const lines = [
    renderMarker({ ...input.marker, kind: 'environment-failed' }),
    '## Environment setup failed',
    '',
    '**Status**: failed, continuing with a warning ⚠',
    `**Environment**: ${input.environment}`,
    '',
    'An error occurred during environment setup. The run continues to the execution phase with limitations.',
    '',
    '**Error details**:',
    '',
    fence(redact(errorText(input)), 'text'),
    '',
    '**What was tried**:',
    `- Network retries: ${input.retries.network}`,
    `- Server-error retries: ${input.retries['server-error']}`,
    `- Lock retries: ${input.retries.lock}`,
    `- LLM regenerations: ${input.regenerations}/${input.maxRegenerations}`,
    `- Error classification: ${c.class} (${c.kind}${c.tool === 'exit-code' ? '' : `, ${c.tool}`})`,
  ];
  if (c.hint) lines.push(`- Hint: ${redact(c.hint)}`);
  if (input.stopReason) lines.push(`- Stopped because: ${redact(input.stopReason)}`);
  lines.push(
    '',
    'The execution phase continues, but some features may not be available because the environment setup is incomplete.',
  );
  return `${lines.join('\n')}\n`;
}
