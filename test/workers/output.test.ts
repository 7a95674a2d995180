import { expect } from 'chai';
import { execa } from 'execa';
import { parseClaudeOutput } from '../../src/workers/claude-code.ts';
import { parseCodexOutput } from '../../src/workers/codex-cli.ts';
import { parseGeminiOutput } from '../../src/workers/gemini-cli.ts';
import { capOutput, lastJsonObject } from '../../src/workers/output.ts';
import { commandLine, shellQuote } from '../../src/workers/spec.ts';

const jsonl = (...events: object[]) => events.map((e) => JSON.stringify(e)).join('\n');

describe('workers/output', () => {
  it('codex: the summary is the last agent message, with changed files and commands', () => {
    const parsed = parseCodexOutput(
      [
        'OpenAI Codex v0.65.0 (research preview)',
        jsonl(
          { type: 'thread.started', thread_id: 't' },
          { type: 'item.completed', item: { type: 'agent_message', text: 'first' } },
          { type: 'item.completed', item: { type: 'command_execution', command: 'ls' } },
          {
            type: 'item.completed',
            item: { type: 'file_change', changes: [{ path: 'a.ts' }, { path: 'b.ts' }] },
          },
          { type: 'item.completed', item: { type: 'agent_message', text: 'Done: fixed it.' } },
          { type: 'turn.completed', usage: { input_tokens: 1 } },
        ),
      ].join('\n'),
      '',
    );

    expect(parsed).to.deep.equal({
      summary: 'Done: fixed it.\nFiles changed: a.ts, b.ts\nCommands run: 1',
    });
  });

  it('codex: turn.failed and error events become the run error', () => {
    expect(
      parseCodexOutput(
        jsonl({ type: 'turn.failed', error: { message: 'stream error: 401 Unauthorized' } }),
        '',
      ).error,
    ).to.equal('stream error: 401 Unauthorized');
    expect(
      parseCodexOutput(jsonl({ type: 'error', message: 'quota exceeded' }), '').error,
    ).to.equal('quota exceeded');
  });

  it('claude: the result text is the summary; is_error gives the subtype as error', () => {
    const ok = { type: 'result', subtype: 'success', is_error: false, result: 'All done.' };
    const bad = { type: 'result', subtype: 'error_max_turns', is_error: true, result: '' };

    expect(parseClaudeOutput(`warning: x\n${JSON.stringify(ok)}\n`, '')).to.deep.equal({
      summary: 'All done.',
    });
    expect(parseClaudeOutput(JSON.stringify(bad), '')).to.deep.equal({
      summary: '(no final message from the agent)',
      error: 'error_max_turns',
    });
  });

  it('gemini: response is the summary; an error object (stdout or stderr) is the error', () => {
    const ok = JSON.stringify({ response: 'Made the change.', stats: {} }, null, 2);
    const bad = JSON.stringify({ error: { type: 'ApiError', message: 'quota', code: 1 } });

    expect(parseGeminiOutput(`Loaded cached credentials.\n${ok}`, '')).to.deep.equal({
      summary: 'Made the change.',
    });
    expect(parseGeminiOutput('', bad)).to.deep.equal({
      summary: '(no final message from the agent)',
      error: 'ApiError: quota',
    });
    expect(parseGeminiOutput('plain text', '').summary).to.match(/^\(output was not the expected/);
  });

  it('lastJsonObject tolerates text around one object', () => {
    expect(lastJsonObject('banner\n{"a": {"b": 1}}\ntrailer')).to.deep.equal({ a: { b: 1 } });
    expect(lastJsonObject('no json here')).to.equal(undefined);
  });

  it('capOutput keeps the head and the tail', () => {
    const text = `${'a'.repeat(100)}${'b'.repeat(100)}`;
    const capped = capOutput(text, 40);

    expect(capped).to.have.length.at.most(40);
    expect(capped).to.match(/^a+\n…\(\d+ characters cut\)…\nb+$/);
    expect(capOutput('short', 40)).to.equal('short');
  });

  it('shellQuote passes any argument through sh -c unchanged', async () => {
    const args = [
      'plain',
      "it's",
      '-p',
      '$HOME `id` "q" \\ ;|&',
      'line1\nline2',
      '',
      '--prompt=-x',
    ];

    const { stdout } = await execa(
      `${commandLine('printf', ['%s\\0', ...args]).replace(/^exec /, '')}`,
      { shell: true },
    );

    expect(stdout.split('\0').slice(0, -1)).to.deep.equal(args);
    expect(shellQuote('a/b.c')).to.equal('a/b.c');
  });
});
