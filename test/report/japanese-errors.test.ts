/**
 * #23/#24: what goes wrong is told in the note's language — the error
 * catalog's hints, the environment failure's hint and stop reason, and the
 * bridge's replies. English from the code (an error's own text, a command)
 * shows only as code.
 */
import { expect } from 'chai';
import { classifyFailure } from '../../src/phases/environment/classify.ts';
import { hintOf } from '../../src/errors/catalog.ts';
import { ExternalServiceError, ModelBehaviorError } from '../../src/errors/errors.ts';
import { renderEnvironmentFailureNote } from '../../src/report/notes/environment-failure-note.ts';
import { renderProgressNote } from '../../src/report/progress/render.ts';
import { finishRun, initialProgress, setFacts } from '../../src/core/progress/updates.ts';
import type { Language } from '../../src/messages/language.ts';
import {
  alreadyRunningText,
  nothingToStopText,
  replyLanguage,
  startFailedText,
  privateRefusalText,
  stoppedText,
} from '../../src/commands/replies.ts';
import { englishWords, renderGitLab, visibleText } from '../support/gitlab-markdown.ts';

// names of things, not template words (`node` is the environment's name)
const NAMES = new Set(['GitLab', 'agent', 'mr', 'UTC', 'LLM', 'API', 'node']);
const english = (markdown: string) =>
  englishWords(renderGitLab(markdown)).filter((w) => !NAMES.has(w));

function failedNote(error: unknown, language: Language): string {
  const e = error as ExternalServiceError;
  const start = initialProgress({
    taskId: 't',
    title: language === 'ja' ? 'テストを直す' : 'Fix the tests',
    startedAt: 0,
    language,
  });
  const withFacts = setFacts(start, {
    changedFiles: [],
    checks: [],
    criteria: [],
    questions: 0,
    error: {
      message: e.message,
      blame: e.blame,
      ...(e.hint ? { hint: e.hint } : {}),
      ...(e.hintKey ? { hintKey: e.hintKey } : {}),
      kind: e.name,
    },
  });
  return renderProgressNote(finishRun(withFacts, { state: 'failed', summary: e.message, at: 1 }));
}

describe('report: failures told in the note’s language (#23, #24)', () => {
  it('#23 a keyed hint (the error catalog) is English in an English note and Japanese in a Japanese one', () => {
    const error = new ExternalServiceError('llm', 'the planning request was refused (401)', {
      hintKey: 'hint.llm.401',
    });
    expect(hintOf(error)).to.equal(
      'Check the API key in the variable named by `llm.api_key_variable`.',
    );
    const [, , enNext] = visibleText(renderGitLab(failedNote(error, 'en')));
    expect(enNext).to.contain(
      'Hint: Check the API key in the variable named by llm.api_key_variable.',
    );
    const ja = failedNote(error, 'ja');
    const [, jaChange, jaNext] = visibleText(renderGitLab(ja));
    expect(jaChange).to.match(/^エラー: the planning request was refused \(401\)/);
    expect(jaNext).to.contain(
      'ヒント: llm.api_key_variable が指す変数の API キーを確認してください。',
    );
    expect(english(ja)).to.deep.equal([]);
  });

  it('#23 an English hint without a key gives way to the error class’s hint in a Japanese note', () => {
    const error = new ModelBehaviorError('the reply did not match the schema', {
      hint: 'Lower the temperature of the model.',
    });
    const ja = failedNote(error, 'ja');
    expect(ja).to.contain('この役割にはより強いモデルを試してください。');
    expect(ja).not.to.contain('Lower the temperature');
    expect(english(ja)).to.deep.equal([]);
    expect(failedNote(error, 'en')).to.contain('Hint: Lower the temperature of the model.');
  });

  it('#23 seed 000 §5.3.9 the environment failure note: the known failure’s hint and why setup stopped, in Japanese', () => {
    const output =
      'npm ERR! `npm ci` can only install packages when your package.json and package-lock.json are in sync.';
    const classification = classifyFailure({ exitCode: 1, output });
    expect(classification.hint).to.equal('use `npm install` or update the lockfile');
    const note = (language: Language) =>
      renderEnvironmentFailureNote({
        environment: 'node',
        command: 'npm ci',
        exitCode: 1,
        output,
        classification,
        retries: { network: 0, 'server-error': 0, lock: 0 },
        regenerations: 3,
        maxRegenerations: 3,
        stopReason: { key: 'envStop.regenerations', params: { count: 3 } },
        language,
      });
    const ja = note('ja');
    expect(ja).to.contain('`npm install` を使うか、ロックファイルを更新してください');
    expect(ja).to.contain('LLM による再生成を 3 回すべて使いました');
    expect(english(ja)).to.deep.equal([]);
    const en = note('en');
    expect(en).to.contain('use `npm install` or update the lockfile');
    expect(en).to.contain('the 3 LLM regenerations were used up');
  });

  it('#23 the bridge’s replies follow the command’s language; GitLab’s status words stay code', () => {
    const language = replyLanguage('テストを直してください');
    expect(language).to.equal('ja');
    expect(replyLanguage('fix the tests')).to.equal('en');
    const mr = { kind: 'merge_request', iid: 12, sourceBranch: 'fix', fork: false } as const;
    const pipeline = { id: 77, status: 'running', ref: 'main', webUrl: 'https://gl/p/77' };
    const replies = [
      privateRefusalText(mr, language),
      alreadyRunningText(mr, pipeline, '/agent', language),
      stoppedText([pipeline], language),
      nothingToStopText({ kind: 'issue', iid: 3 }, language),
      startFailedText('400 Bad request - variables are not allowed', undefined, language),
    ];
    for (const reply of replies) expect(english(reply), reply).to.deep.equal([]);
    expect(replies[0]).to.contain('このマージリクエスト');
    expect(privateRefusalText(mr)).to.contain('on this merge request (notes, commits');
  });
});
