import { expect } from 'chai';
import { t } from '../../src/messages/catalog.ts';
import type { MessageKey } from '../../src/messages/en.ts';
import { LANGUAGES, type Language } from '../../src/messages/language.ts';
import { STATE_EMOJI, type NoteState } from '../../src/report/vocabulary.ts';
import { englishWords, renderGitLab, visibleText } from '../support/gitlab-markdown.ts';
import { gallery } from './gallery.ts';
import { JA_MODEL_TEXT } from './gallery-ja.ts';

/** A catalog message as a pattern: its placeholders match anything. */
function pattern(language: Language, key: MessageKey, count = 2): RegExp {
  const text = t(
    language,
    key,
    new Proxy({ count }, { get: (_o, k) => (k === 'count' ? count : `\u0000`) }) as never,
  );
  const source = text
    .split('\u0000')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\*\*|`/g, ''))
    .join('.+');
  return new RegExp(source);
}

const STATE_OF: ReadonlyArray<readonly [RegExp, NoteState]> = [
  [/first-version|running/, 'running'],
  [/complete|long-run/, 'complete'],
  [/failed/, 'failed'],
  [/cancelled/, 'cancelled'],
  [/waiting-for-answer/, 'awaiting_answer'],
  [/needs-human/, 'needs_human'],
  [/interrupted/, 'interrupted'],
  [/paused/, 'paused'],
  [/budget/, 'budget_exhausted'],
];

function noteState(name: string): NoteState {
  return STATE_OF.find(([re]) => re.test(name))![1];
}

/** What the change line may say about delivery, in one language. */
function deliveryPatterns(language: Language): RegExp[] {
  const keys: MessageKey[] = [
    'facts.pushed',
    'facts.nothingPushedYet',
    'facts.nothingPushed',
    'facts.noChanges',
    'facts.pushDisabled',
    'facts.patchPosted',
    'facts.interrupted',
  ];
  return keys.map((key) => pattern(language, key));
}

/** Internal ids, upper-case state names and raw verdict or replan constants. */
const INTERNAL =
  /\b(?:[A-Z]{1,3}\d+:|task_\d\w*|AC-\d+|RUNNING|COMPLETE|FAILED|PASS_WITH_SUGGESTIONS|PASS|FAIL|awaiting_answer|needs_human|partial_replan|action_regeneration|task_redecomposition|max_revisions|final state)\b/;

/** Words a Japanese note may hold outside code: names of things, not templates. */
const NAMES = new Set([
  'mr',
  'agent',
  'UTC',
  'GitLab',
  'CI',
  'Developer',
  'python',
  'SIGTERM',
  'ms',
]);

describe('report: notes rendered with GitLab Markdown rules (markdown-it, breaks: false, task lists) (#24)', () => {
  for (const language of LANGUAGES) {
    const notes = gallery(language);

    it(`${language}: line breaks are where intended — no line runs into the next (no soft break)`, () => {
      for (const [name, body] of notes)
        expect(renderGitLab(body).softBreaks, `${name}: lines joined by GitLab`).to.deep.equal([]);
      const complete = visibleText(renderGitLab(notes.get('progress-4-complete')!));
      const [first, second] =
        language === 'en'
          ? ['used it in the client.', 'All 14 tests pass.']
          : ['使うようにしました。', 'すべて成功します。'];
      const i = complete.findIndex((l) => l.endsWith(first));
      expect(i, 'the result keeps its two lines').to.be.greaterThan(0);
      expect(complete[i + 1]).to.contain(second);
    });

    it(`${language}: the first 3 lines of the progress and summary notes hold state, change and next step`, () => {
      for (const [name, body] of notes) {
        if (!/^(progress|summary)-/.test(name)) continue;
        const state = noteState(name);
        const [head, change, next] = visibleText(renderGitLab(body));
        expect(head, name).to.contain(
          `${STATE_EMOJI[state]} ${t(language, `state.${state}` as MessageKey)}`,
        );
        expect(
          deliveryPatterns(language).some((re) => re.test(change!)),
          `${name}: "${change}" says whether anything was pushed`,
        ).to.equal(true);
        // the closing reply points at the progress note, which holds the next step
        if (name.startsWith('summary-'))
          expect(next, name).to.match(language === 'ja' ? /進捗ノート/ : /progress note/);
        else expect(next, name).to.match(new RegExp(`^${t(language, 'next.label')} `));
      }
    });

    it(`${language}: the other notes also open with their state, what happened and the next step`, () => {
      for (const name of ['human-intervention', 'environment-failure', 'patch']) {
        const [head, , next] = visibleText(renderGitLab(notes.get(name)!));
        expect(head, name).to.match(/^(🙋|⚠️|🩹) /);
        expect(next, name).to.match(new RegExp(`^${t(language, 'next.label')} `));
      }
      for (const name of ['clarification', 'clarification-paused']) {
        const lines = visibleText(renderGitLab(notes.get(name)!));
        expect(lines[0], name).to.match(/^❓ @dana/);
        // the question says how to answer it: in this thread, with an example reply
        expect(
          lines.some((l) => l.includes(language === 'ja' ? '<回答>' : '<your answer>')),
          name,
        ).to.equal(true);
      }
    });

    it(`${language}: the folded part holds the rest — phases, reviews, model calls and diagrams are inside <details>`, () => {
      for (const [name, body] of notes) {
        const note = renderGitLab(body);
        expect(note.visibleBlocks.has('table'), `${name}: a table outside the fold`).to.equal(
          false,
        );
        // a suggestion stays where GitLab offers to apply it: the thread's only code
        expect(
          note.visibleBlocks.has('fence') && name !== 'review-thread',
          `${name}: a diagram or code outside the fold`,
        ).to.equal(false);
        if (name.startsWith('progress-') && name !== 'progress-1-first-version') {
          expect(note.summaries[0], name).to.match(
            new RegExp(`^${t(language, 'details.summary')} · `),
          );
          expect(note.foldedBlocks.has('table'), name).to.equal(true);
        }
      }
      const first = renderGitLab(notes.get('progress-1-first-version')!);
      expect(first.summaries, 'the first version has nothing to fold').to.deep.equal([]);
      expect(visibleText(first)).to.have.length(4);
      const diagram = renderGitLab(notes.get('progress-3-running-revised')!);
      expect(diagram.foldedBlocks.has('fence'), 'a revised plan draws its loop, folded').to.equal(
        true,
      );
      expect(
        renderGitLab(notes.get('progress-2-running')!).foldedBlocks.has('fence'),
        'no loop, no diagram',
      ).to.equal(false);
    });

    it(`${language}: no internal ids (A1:, task_1:) or state names (RUNNING, PASS_WITH_SUGGESTIONS) appear`, () => {
      for (const [name, body] of notes)
        for (const line of renderGitLab(body).lines)
          if (line.block !== 'fence') expect(line.text, name).to.not.match(INTERNAL);
    });
  }

  it('ja: no English template words outside code and links (only names and the model text)', () => {
    const allowed = new Set(NAMES);
    for (const text of Object.values(JA_MODEL_TEXT))
      for (const w of text.match(/[A-Za-z][A-Za-z'’]+/g) ?? []) allowed.add(w);
    for (const [name, body] of gallery('ja')) {
      const leaked = englishWords(renderGitLab(body)).filter((w) => !allowed.has(w));
      expect(leaked, name).to.deep.equal([]);
    }
  });
});
