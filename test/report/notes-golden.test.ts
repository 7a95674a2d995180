import { expect } from 'chai';
import { parseMarker } from '../../src/report/marker.ts';
import { LANGUAGES } from '../../src/messages/language.ts';
import { hasUnescapedQuickAction, escapeQuickActions } from '../../src/report/markdown.ts';
import { expectGolden } from '../support/golden.ts';
import { gallery } from './gallery.ts';

/**
 * Issue #24 "golden tests cover every note in every state", in every
 * language of #23: test/golden/notes/<lang>/<note>.md.
 */
describe('report: every note in every state matches its golden file (#24, #23)', () => {
  for (const language of LANGUAGES) {
    for (const [name, body] of gallery(language)) {
      it(`H1 H2 ${language}/${name}`, async () => {
        await expectGolden(`notes/${language}/${name}.md`, body);
      });
    }
  }

  it('the gallery has every state of the progress note, the summary and every other note', () => {
    expect([...gallery('en').keys()]).to.include.members([
      'progress-1-first-version',
      'progress-2-running',
      'progress-4-complete',
      'progress-5-failed',
      'progress-6-cancelled',
      'progress-7-waiting-for-answer',
      'progress-8-needs-human',
      'summary-complete',
      'clarification',
      'human-intervention',
      'environment-failure',
      'patch',
      'status-running',
      'help',
    ]);
  });

  it('I2 every note keeps its hidden, language-neutral marker first, whatever the language', () => {
    const en = gallery('en');
    for (const [name, body] of gallery('ja')) {
      const first = body.split('\n')[0]!;
      expect(parseMarker(first), name).to.not.equal(undefined);
      expect(first, name).to.equal(en.get(name)!.split('\n')[0]);
    }
  });

  it('M3 no note line runs a quick action once escaped', () => {
    for (const language of LANGUAGES)
      for (const [name, body] of gallery(language))
        expect(hasUnescapedQuickAction(escapeQuickActions(body)), name).to.equal(false);
  });
});
