/**
 * The "environment setup failed" note (seed 000 §5.3.9): the run goes on
 * without the environment, so the note says that first, then what to do,
 * then (folded) the error output and what was tried — retries by kind, LLM
 * regenerations n/max, the error's classification and why it stopped.
 * Secrets are masked; the output is fenced so it cannot break the markdown.
 */
import type { Redactor } from '../../log/redact.ts';
import { renderMarker, type NoteMarker } from '../marker.ts';
import type { Language } from '../../messages/language.ts';
import { fence, inlineCode, oneLine } from '../markdown.ts';
import { voiceOf, type Voice } from '../progress/headline.ts';
import { CATALOGS, type MessageParams } from '../../messages/catalog.ts';
import type { MessageKey } from '../../messages/en.ts';
import { EMOJI } from '../vocabulary.ts';

/** Why setup stopped: a catalog message (or, from older callers, text in the note's language). */
export type StopReason = string | { key: MessageKey; params?: MessageParams };

export interface EnvironmentFailureInput {
  environment: string;
  /** The failing command and what it printed (already cut to a tail). */
  command: string;
  exitCode: number | undefined;
  output: string;
  classification: {
    class: string;
    kind: string;
    tool: string;
    evidence: string;
    /** English; shown only in an English note when there is no `hintKey`. */
    hint?: string;
    /** The hint as a catalog key (`envHint.*`). */
    hintKey?: string;
  };
  retries: { network: number; 'server-error': number; lock: number };
  regenerations: number;
  maxRegenerations: number;
  /** Why the loop stopped (e.g. "regenerations used up"), when not obvious from the class. */
  stopReason?: StopReason;
  marker?: Omit<NoteMarker, 'kind'>;
  redactor?: Redactor;
  language?: Language;
}

const MAX_ERROR_CHARS = 4000;

function errorText(input: EnvironmentFailureInput): string {
  const output = input.output.trim();
  const evidence = input.classification.evidence;
  const body = output.includes(evidence) ? output : [evidence, output].filter(Boolean).join('\n\n');
  const code = input.exitCode === undefined ? '' : ` (exit ${input.exitCode})`;
  const text = `$ ${input.command}${code}\n\n${body}`;
  return text.length > MAX_ERROR_CHARS ? `…${text.slice(-MAX_ERROR_CHARS)}` : text;
}

const CLASSES = new Set(['retryable', 'fixable', 'fatal']);

function classWords(v: Voice, failureClass: string): string {
  return CLASSES.has(failureClass)
    ? v.m(`envFail.kind.${failureClass}` as MessageKey)
    : inlineCode(failureClass);
}

/** The classification's hint in the note's language: its catalog key, else English text in English. */
function hintOf(c: EnvironmentFailureInput['classification'], v: Voice): string | undefined {
  if (c.hintKey?.startsWith('envHint.') && c.hintKey in CATALOGS.en)
    return v.m(c.hintKey as MessageKey);
  return v.language === 'en' ? c.hint : undefined;
}

export function renderEnvironmentFailureNote(input: EnvironmentFailureInput): string {
  const v = voiceOf({ language: input.language });
  const c = input.classification;
  const redact = (text: string) => (input.redactor ? input.redactor.redact(text) : text);
  const command = inlineCode(oneLine(redact(input.command), 200));
  const environment = `**${oneLine(input.environment, 40)}**`;
  const what =
    input.exitCode === undefined
      ? v.m('envFail.noExit', { command, environment })
      : v.m('envFail.exit', { command, environment, code: String(input.exitCode) });
  const hint = hintOf(c, v);
  const next = hint
    ? v.m('blame.hint', { hint: oneLine(redact(hint), 300) })
    : v.m('envFail.next', { command });
  const tried = [
    v.m('envFail.retries', {
      network: input.retries.network,
      server: input.retries['server-error'],
      lock: input.retries.lock,
    }),
    v.m('envFail.regenerations', { count: input.regenerations, max: input.maxRegenerations }),
    v.m('envFail.class', {
      class: [inlineCode(c.kind), inlineCode(c.tool), classWords(v, c.class)].join(
        v.m('punct.comma'),
      ),
    }),
  ];
  const reason = input.stopReason;
  if (reason) {
    const text = typeof reason === 'string' ? reason : v.m(reason.key, reason.params);
    tried.push(v.m('envFail.stopReason', { reason: oneLine(redact(text), 300) }));
  }
  const lines = [
    renderMarker({ ...input.marker, kind: 'environment-failed' }),
    `### ${EMOJI.warning} ${v.m('envFail.heading')}`,
    '',
    `${what} ${v.m('envFail.effect')}`,
    '',
    `**${v.m('next.label')}** ${next}`,
    '',
    '<details>',
    `<summary>${v.m('envFail.details')}</summary>`,
    '',
    fence(redact(errorText(input)), 'text'),
    '',
    ...tried.map((t) => `- ${t}`),
    '',
    '</details>',
  ];
  return `${lines.join('\n')}\n`;
}
