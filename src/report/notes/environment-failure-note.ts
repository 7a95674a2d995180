/**
 * The "environment setup failed" note: the run goes on
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
import { defineMessages, type BlockKey } from '../../messages/catalog.ts';
import { defineNote } from '../note-definition.ts';

export const ENVIRONMENT_FAILURE_MESSAGES = defineMessages({
  en: {
    'envFail.heading': 'Environment setup failed · going on without it',
    'envFail.exit': '{command} exited with code {code} in the {environment} environment.',
    'envFail.noExit': '{command} did not finish in the {environment} environment.',
    'envFail.effect': 'The run goes on; tests and builds that need this environment may fail.',
    'envFail.next': 'if the tests need this environment, make {command} work in CI, then retry.',
    'envFail.details': 'Error output and what was tried',
    'envFail.retries': 'Retries: network {network}, server errors {server}, locks {lock}',
    'envFail.regenerations': 'Setup commands regenerated {count} of {max} times',
    'envFail.class': 'Classified as: {class}',
    'envFail.kind.retryable': 'may pass on a retry',
    'envFail.kind.fixable': 'fixable in the setup commands',
    'envFail.kind.fatal': 'not fixable by the agent',
    'envFail.stopReason': 'Stopped because: {reason}',
  },
  ja: {
    'envFail.heading': '環境構築に失敗しました · 環境なしで続行します',
    'envFail.exit': '{environment} 環境で {command} が終了コード {code} で終了しました。',
    'envFail.noExit': '{environment} 環境で {command} が正常に終了しませんでした。',
    'envFail.effect':
      '実行は続けますが、この環境が必要なテストやビルドは失敗する可能性があります。',
    'envFail.next':
      'テストにこの環境が必要な場合は、CI で {command} が成功するようにしてから再試行してください。',
    'envFail.details': 'エラー出力と試したこと',
    'envFail.retries':
      '再試行: ネットワーク {network} 回、サーバーエラー {server} 回、ロック {lock} 回',
    'envFail.regenerations': 'セットアップコマンドの再生成: {max} 回中 {count} 回',
    'envFail.class': '分類: {class}',
    'envFail.kind.retryable': '再試行で解決する可能性あり',
    'envFail.kind.fixable': 'セットアップコマンドの修正で解決可能',
    'envFail.kind.fatal': 'エージェントでは解決不可',
    'envFail.stopReason': '停止した理由: {reason}',
  },
});

/** The ⚠️ environment setup that failed while the run goes on without it. */
export const ENVIRONMENT_FAILURE_NOTE = defineNote({
  name: 'environment-failure',
  purpose: 'the ⚠️ environment setup that failed while the run goes on without it',
  messages: ENVIRONMENT_FAILURE_MESSAGES,
});

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
    /** The values the hint's text names. */
    hintParams?: Record<string, string>;
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

type FailureVoice = Voice<BlockKey<typeof ENVIRONMENT_FAILURE_MESSAGES>>;

function classWords(v: FailureVoice, failureClass: string): string {
  return CLASSES.has(failureClass)
    ? v.m(`envFail.kind.${failureClass}` as BlockKey<typeof ENVIRONMENT_FAILURE_MESSAGES>)
    : inlineCode(failureClass);
}

/** The classification's hint in the note's language: its catalog key, else English text in English. */
function hintOf(c: EnvironmentFailureInput['classification'], v: Voice): string | undefined {
  if (c.hintKey?.startsWith('envHint.') && c.hintKey in CATALOGS.en)
    return v.m(c.hintKey as MessageKey, c.hintParams ?? {});
  return v.language === 'en' ? c.hint : undefined;
}

export function renderEnvironmentFailureNote(input: EnvironmentFailureInput): string {
  const v = voiceOf({ language: input.language }, ENVIRONMENT_FAILURE_MESSAGES);
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
