import { expect } from 'chai';
import { t } from '../../src/messages/catalog.ts';
import { gallery } from '../report/gallery.ts';
import { englishTemplateWords, templateLeaks } from '../support/template-words.ts';

/**
 * The check the Japanese end-to-end tests use (issue 32: "0 English template
 * words in any Japanese note"), itself checked: built from the catalog's
 * English texts, it finds an English catalog text in a Japanese note and
 * finds nothing in the shipped Japanese notes.
 */
describe('messages: English template words, taken from the catalog (issue 32)', () => {
  it('#23 the words come from the English catalog, less what the Japanese texts keep (names)', () => {
    const words = englishTemplateWords();
    expect(words.size).to.be.greaterThan(300);
    expect(words.has('cancelled')).to.equal(true);
    expect(words.has('feedback')).to.equal(true);
    // a name the Japanese texts keep as it is is no template word
    expect(words.has('gitlab')).to.equal(false);
  });

  it('#23 an English catalog text in a Japanese note is caught (the review-feedback step as it leaked before)', () => {
    const leaked = `- [ ] ${t('en', 'item.reviewFeedback', { feedback: '名前が空のとき' })}`;
    expect(templateLeaks(leaked)).to.include.members(['Address', 'execution', 'feedback']);
    const japanese = `- [ ] ${t('ja', 'item.reviewFeedback', { feedback: '名前が空のとき' })}`;
    expect(templateLeaks(japanese)).to.deep.equal([]);
  });

  it('#23 words in code, links and words a test allows (the model’s own) are no leak', () => {
    expect(templateLeaks('`the job` と [ジョブ](https://example.com/the/job)')).to.deep.equal([]);
    expect(templateLeaks('the farewell', new Set(['the']))).to.deep.equal([]);
    expect(templateLeaks('http/retry.py と tests/ を直す')).to.deep.equal([]);
  });

  it('#23 every Japanese note of the gallery holds no English template word', () => {
    for (const [name, body] of gallery('ja')) expect(templateLeaks(body), name).to.deep.equal([]);
  });
});
