/**
 * The 🩹 patch note posted on a fork merge request mr-agent cannot push to
 * (see docs/security.md, forks): that nothing was pushed and why, how to apply the change, then
 * the diff (folded) in a fenced block. The body goes through the note
 * pipeline (redaction, quick-action escaping, truncation below GitLab's limit
 * with the fence and the fold closed).
 */
import type { Redactor } from '../../log/redact.ts';
import { renderMarker, type NoteMarker } from '../marker.ts';
import type { Language } from '../../messages/language.ts';
import { fence, inlineCode, oneLine, safeProse } from '../markdown.ts';
import { prepareNoteBody } from '../note-body.ts';
import { voiceOf } from '../progress/headline.ts';
import { EMOJI } from '../vocabulary.ts';
import { mention } from './context.ts';
import { defineMessages } from '../../messages/catalog.ts';
import { defineNote } from '../note-definition.ts';

export const PATCH_MESSAGES = defineMessages({
  en: {
    'patch.heading': 'Patch to apply · could not push to {branch}',
    'patch.line': 'I could not push to {branch}: {reason}. Nothing was pushed.',
    'patch.headingPolicy': 'Patch to apply · not pushed to {branch} by policy',
    'patch.why.forkPolicy':
      "Nothing was pushed to the fork by policy: the fork's code was not run (`trigger.forks: patch`, the default). A Maintainer can opt in with `trigger.forks: run`.",
    'patch.why.forkProtectedRef':
      "Nothing was pushed to the fork by policy: this pipeline runs on the protected ref {ref}, so the fork's code was not run. Start the run through the webhook bridge, which runs it on the merge request's own ref.",
    'patch.why.forkNoCollaboration':
      'I could not push to {branch}: the fork does not allow commits from members. Nothing was pushed.',
    'patch.next':
      'save the patch below as `mr-agent.patch`, run `git apply mr-agent.patch` in your checkout and push.',
    'patch.details': { one: 'The patch · 1 file', other: 'The patch · {count} files' },
    'patch.full': 'the full patch is in the job artifacts as {path}',
  },
  ja: {
    'patch.heading': '適用用のパッチ · {branch} にプッシュできませんでした',
    'patch.line': '{branch} にプッシュできませんでした: {reason}。何もプッシュしていません。',
    'patch.headingPolicy': '適用用のパッチ · ポリシーにより {branch} にはプッシュしていません',
    'patch.why.forkPolicy':
      'ポリシーによりフォークには何もプッシュしていません。フォークのコードは実行していません（`trigger.forks: patch`、既定値）。メンテナーは `trigger.forks: run` で許可できます。',
    'patch.why.forkProtectedRef':
      'ポリシーによりフォークには何もプッシュしていません。このパイプラインは保護された ref {ref} で動いているため、フォークのコードは実行していません。マージリクエスト自身の ref で実行する Webhook ブリッジから開始してください。',
    'patch.why.forkNoCollaboration':
      '{branch} にプッシュできませんでした: フォークがメンバーからのコミットを許可していません。何もプッシュしていません。',
    'patch.next':
      '下のパッチを `mr-agent.patch` として保存し、手元のチェックアウトで `git apply mr-agent.patch` を実行してプッシュしてください。',
    'patch.details': { one: 'パッチ · {count} ファイル', other: 'パッチ · {count} ファイル' },
    'patch.full': 'パッチ全体はジョブのアーティファクト {path} にあります',
  },
});

/** The 🩹 patch to apply by hand, when the change could not be pushed. */
export const PATCH_NOTE = defineNote({
  name: 'patch',
  purpose: 'the 🩹 patch to apply by hand, when the change could not be pushed',
  messages: PATCH_MESSAGES,
});

/**
 * Why the change is a patch, when the catalog can say it: a fork's code not
 * run by policy (its patch is never pushed), or a fork that refuses members'
 * commits. Other reasons are texts from git or GitLab (`reason`).
 */
export type NotPushedWhy =
  | { kind: 'fork-policy' }
  | { kind: 'fork-protected-ref'; ref: string }
  | { kind: 'fork-no-collaboration' };

export interface PatchNoteInput {
  marker: Omit<NoteMarker, 'kind'>;
  branch: string;
  /** Why nothing was pushed, as git or GitLab told it (used when `why` is absent). */
  reason: string;
  why?: NotPushedWhy;
  diff: string;
  filesChanged: number;
  /** Where the full patch is kept (job artifacts), named when the note is truncated. */
  artifactPath: string;
  redactor: Redactor;
  language?: Language;
  /**
   * Who asked (GitLab username): the patch note is the run's closing note
   * then, so it @mentions them (GitLab notifies them of the end).
   */
  requester?: string;
}

/** A reason from git or GitLab: English prose, so code in a note of another language. */
function reasonText(reason: string, language: Language | undefined): string {
  const text = oneLine(safeProse(reason), 300);
  return (language ?? 'en') === 'en' ? text : inlineCode(oneLine(reason, 300));
}

export function renderPatchNote(input: PatchNoteInput): string {
  const v = voiceOf({ language: input.language }, PATCH_MESSAGES);
  const branch = inlineCode(input.branch);
  const why = input.why;
  const byPolicy = why?.kind === 'fork-policy' || why?.kind === 'fork-protected-ref';
  const line =
    why?.kind === 'fork-policy'
      ? v.m('patch.why.forkPolicy')
      : why?.kind === 'fork-protected-ref'
        ? v.m('patch.why.forkProtectedRef', { ref: inlineCode(why.ref) })
        : why?.kind === 'fork-no-collaboration'
          ? v.m('patch.why.forkNoCollaboration', { branch })
          : v.m('patch.line', { branch, reason: reasonText(input.reason, v.language) });
  const body = [
    renderMarker({ kind: 'patch', ...input.marker }),
    `### ${EMOJI.patch} ${v.m(byPolicy ? 'patch.headingPolicy' : 'patch.heading', { branch })}`,
    '',
    `${mention({ taskId: '', ...(input.requester ? { requester: input.requester } : {}) })}${line}`,
    '',
    `**${v.m('next.label')}** ${v.m('patch.next')}`,
    '',
    '<details>',
    `<summary>${v.m('patch.details', { count: input.filesChanged })}</summary>`,
    '',
    fence(input.diff, 'diff'),
    '',
    '</details>',
    '',
  ].join('\n');
  return prepareNoteBody(body, {
    redactor: input.redactor,
    fullTextHint: v.m('patch.full', { path: inlineCode(input.artifactPath) }),
  });
}
