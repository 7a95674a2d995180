/**
 * The notes of `/agent review`: one thread per finding on the diff line it
 * is about (with a suggestion GitLab can apply when the reviewer gave a
 * concrete fix), the one-line reply that closes a thread whose finding is
 * gone, the comment listing the findings GitLab would not place on the diff,
 * and the summary line the progress note ends with. Each body goes through
 * the note pipeline (redaction, quick actions escaped, size); a suggestion
 * with a line GitLab could take for a quick action is left out, since
 * escaping it would change the code it applies.
 */
import type { Redactor } from '../../log/redact.ts';
import type { Language } from '../../messages/language.ts';
import { defineMessages } from '../../messages/catalog.ts';
import { fence, hasUnescapedQuickAction, inlineCode, oneLine, safeProse } from '../markdown.ts';
import { prepareNoteBody } from '../note-body.ts';
import { voiceOf } from '../progress/headline.ts';
import { EMOJI } from '../vocabulary.ts';
import { defineNote } from '../note-definition.ts';

export const REVIEW_MESSAGES = defineMessages({
  en: {
    'review.severity.critical': 'Critical',
    'review.severity.major': 'Major',
    'review.severity.minor': 'Minor',
    'review.severity.info': 'Note',
    'review.fixed': 'This finding is gone in {sha}; resolving the thread.',
    'review.refused.heading': 'Review findings I could not place on the diff',
    'review.refused.line': '{where} ({severity}): {message} — {reason}',
    'review.summary': 'Review {verdict}: {counts}.',
    'review.none': 'no findings',
    'review.count': '{count} {severity}',
    'review.threads': 'Threads: {links}',
    'review.unplaced': '{count} could not be placed on the diff: {link}',
    'review.resolved': {
      one: '1 earlier thread resolved',
      other: '{count} earlier threads resolved',
    },
    'review.kept': {
      one: '1 finding already has its thread',
      other: '{count} findings already have their threads',
    },
    'review.leftOpen': {
      one: '1 earlier thread left open: its finding is no longer reported, but its lines did not change',
      other:
        '{count} earlier threads left open: their findings are no longer reported, but their lines did not change',
    },
    'review.skipped': 'Not reviewed: {files}',
    'review.skipped.file': '{file} ({reason})',
    'review.skipped.more': { one: '1 more', other: '{count} more' },
    'review.skip.deleted': 'deleted',
    'review.skip.binary': 'binary, or no text diff',
    'review.skip.renamed': 'renamed without changes',
    'review.skip.lockfile': 'lockfile',
    'review.skip.build': 'build output',
    'review.skip.minified': 'minified',
    'review.skip.attributes': 'marked generated in `.gitattributes`',
    'review.skip.budget': 'the budget ran out',
  },
  ja: {
    'review.severity.critical': '重大',
    'review.severity.major': '重要',
    'review.severity.minor': '軽微',
    'review.severity.info': '補足',
    'review.fixed': '{sha} でこの指摘は解消されました。スレッドを解決済みにします。',
    'review.refused.heading': '差分上に置けなかったレビューの指摘',
    'review.refused.line': '{where}（{severity}）: {message} — {reason}',
    'review.summary': 'レビュー {verdict}: {counts}。',
    'review.none': '指摘なし',
    'review.count': '{severity} {count} 件',
    'review.threads': 'スレッド: {links}',
    'review.unplaced': '{count} 件は差分上に置けませんでした: {link}',
    'review.resolved': {
      one: '以前のスレッド {count} 件を解決',
      other: '以前のスレッド {count} 件を解決',
    },
    'review.kept': {
      one: '{count} 件は既存のスレッドがあります',
      other: '{count} 件は既存のスレッドがあります',
    },
    'review.leftOpen': {
      one: '以前のスレッド {count} 件は開いたままです（指摘は報告されなくなりましたが、行は変更されていません）',
      other:
        '以前のスレッド {count} 件は開いたままです（指摘は報告されなくなりましたが、行は変更されていません）',
    },
    'review.skipped': 'レビュー対象外: {files}',
    'review.skipped.file': '{file}（{reason}）',
    'review.skipped.more': { one: 'ほか {count} 件', other: 'ほか {count} 件' },
    'review.skip.deleted': '削除',
    'review.skip.binary': 'バイナリ、またはテキスト差分なし',
    'review.skip.renamed': '変更なしの名前変更',
    'review.skip.lockfile': 'ロックファイル',
    'review.skip.build': 'ビルド成果物',
    'review.skip.minified': '圧縮済みコード',
    'review.skip.attributes': '`.gitattributes` で生成物と指定',
    'review.skip.budget': '予算の上限に達したため',
  },
});

export const REVIEW_NOTE = defineNote({
  name: 'review',
  purpose:
    'the threads of `/agent review` on diff lines, their replies, and the findings GitLab would not place',
  messages: REVIEW_MESSAGES,
});

export type SeverityName = 'critical' | 'major' | 'minor' | 'info';
const SEVERITY_EMOJI: Record<SeverityName, string> = {
  critical: EMOJI.failed,
  major: EMOJI.warning,
  minor: EMOJI.suggestion,
  info: 'ℹ️',
};

/**
 * The hidden marker of a finding's thread: the finding's identity across
 * re-reviews and, when it sits on lines, a fingerprint of those lines
 * (`<count>-<hash>`), which tells a later review whether they changed.
 */
export function findingMarker(identity: string, lines?: string): string {
  const fingerprint = lines ? ` lines=${lines.replace(/[^a-f0-9-]/g, '')}` : '';
  return `<!-- mr-agent:finding id=${identity.replace(/[^a-f0-9]/g, '')}${fingerprint} -->`;
}

const MARKER = /<!-- mr-agent:finding id=([a-f0-9]+)(?: lines=(\d+-[a-f0-9]+))? -->/;

/** The identity in a thread's first note, when it is one of ours. */
export function findingIdentityOf(body: string): string | undefined {
  return MARKER.exec(body.slice(0, 300))?.[1];
}

/** The fingerprint of the lines a thread was posted on, when its marker has one. */
export function findingLinesOf(body: string): string | undefined {
  return MARKER.exec(body.slice(0, 300))?.[2];
}

interface Common {
  redactor: Redactor;
  language?: Language | undefined;
}

export interface FindingThreadInput extends Common {
  identity: string;
  /** The fingerprint of the anchored lines (see `findingMarker`). */
  lines?: string | undefined;
  severity: SeverityName;
  message: string;
  /** The replacement of the anchored lines, and how many lines above the position's line they start. */
  suggestion?: { text: string; linesAbove: number } | undefined;
}

export function renderFindingThread(input: FindingThreadInput): string {
  const v = voiceOf({ language: input.language }, REVIEW_MESSAGES);
  const heading = `${SEVERITY_EMOJI[input.severity]} **${v.m(`review.severity.${input.severity}`)}**`;
  const text = `${heading} · ${safeProse(input.message).trim()}`;
  const body = prepareNoteBody(`${findingMarker(input.identity, input.lines)}\n${text}\n`, {
    redactor: input.redactor,
  });
  const replacement = input.suggestion ? input.redactor.redact(input.suggestion.text) : undefined;
  if (replacement === undefined || hasUnescapedQuickAction(replacement)) return body;
  // the block stays exactly what the lines become: not escaped, and only where nothing needs escaping
  return `${body}\n${fence(replacement, `suggestion:-${input.suggestion!.linesAbove}+0`)}\n`;
}

export function renderFixedReply(input: Common & { sha: string }): string {
  const v = voiceOf({ language: input.language }, REVIEW_MESSAGES);
  return prepareNoteBody(
    `<!-- mr-agent:finding-fixed -->\n${EMOJI.done} ${v.m('review.fixed', { sha: inlineCode(input.sha.slice(0, 8)) })}`,
    {
      redactor: input.redactor,
    },
  );
}

export interface UnplacedFinding {
  file: string;
  line: number;
  severity: SeverityName;
  message: string;
  reason: string;
}

export function renderUnplacedFindings(input: Common & { findings: UnplacedFinding[] }): string {
  const v = voiceOf({ language: input.language }, REVIEW_MESSAGES);
  const lines = input.findings.map(
    (f) =>
      `- ${v.m('review.refused.line', {
        where: inlineCode(`${f.file}:${f.line}`),
        severity: v.m(`review.severity.${f.severity}`),
        message: oneLine(safeProse(f.message), 500),
        reason: oneLine(safeProse(f.reason), 300),
      })}`,
  );
  return prepareNoteBody(
    [
      '<!-- mr-agent:review-unplaced -->',
      `### ${EMOJI.warning} ${v.m('review.refused.heading')}`,
      '',
      ...lines,
      '',
    ].join('\n'),
    { redactor: input.redactor },
  );
}

export interface ReviewSummaryInput {
  language?: Language | undefined;
  verdict: string;
  counts: Record<SeverityName, number>;
  threads: { label: string; url: string }[];
  unplaced?: { count: number; url: string } | undefined;
  resolved: number;
  kept: number;
  /** Earlier threads whose finding is gone but whose lines did not change. */
  leftOpen?: number | undefined;
  /** Changed files the review left out, with the reason. */
  skipped?: readonly { path: string; reason: SkipReasonName }[] | undefined;
}

/** Why a review leaves a changed file out (each has its text, `review.skip.<reason>`). */
export const SKIP_REASONS = [
  'deleted',
  'binary',
  'renamed',
  'lockfile',
  'build',
  'minified',
  'attributes',
  'budget',
] as const;
export type SkipReasonName = (typeof SKIP_REASONS)[number];

/** Files named in the summary before the rest are counted. */
const SKIPPED_SHOWN = 20;

/** The summary the progress note ends with: verdict, count per severity, a link to each thread. */
export function renderReviewSummary(input: ReviewSummaryInput): string {
  const v = voiceOf({ language: input.language }, REVIEW_MESSAGES);
  const counts = (Object.keys(input.counts) as SeverityName[])
    .filter((s) => input.counts[s] > 0)
    .map((s) =>
      v.m('review.count', { count: input.counts[s], severity: v.m(`review.severity.${s}`) }),
    );
  const parts = [
    v.m('review.summary', {
      verdict: inlineCode(input.verdict),
      counts: counts.length > 0 ? counts.join(', ') : v.m('review.none'),
    }),
  ];
  if (input.threads.length > 0)
    parts.push(
      v.m('review.threads', {
        links: input.threads.map((t) => `[${t.label}](${t.url})`).join(', '),
      }),
    );
  if (input.unplaced)
    parts.push(
      v.m('review.unplaced', { count: input.unplaced.count, link: `[#](${input.unplaced.url})` }),
    );
  if (input.kept > 0) parts.push(v.m('review.kept', { count: input.kept }));
  if (input.resolved > 0) parts.push(v.m('review.resolved', { count: input.resolved }));
  if (input.leftOpen) parts.push(v.m('review.leftOpen', { count: input.leftOpen }));
  const skipped = input.skipped ?? [];
  if (skipped.length > 0) {
    const named = skipped.slice(0, SKIPPED_SHOWN).map((s) =>
      v.m('review.skipped.file', {
        file: inlineCode(oneLine(s.path, 200)),
        reason: v.m(`review.skip.${s.reason}`),
      }),
    );
    if (skipped.length > SKIPPED_SHOWN)
      named.push(v.m('review.skipped.more', { count: skipped.length - SKIPPED_SHOWN }));
    parts.push(v.m('review.skipped', { files: named.join(', ') }));
  }
  return parts.join(' · ');
}
