import { expect } from 'chai';
import { parseNoteEvent, type NoteHookEvent } from '../../src/commands/note-event.ts';
import { isBotUser } from '../../src/core/bot-users.ts';
import { decideNote } from '../../src/commands/note-rules.ts';
import { interpretTriggerPayload } from '../../src/commands/trigger-payload.ts';
import { resumeRequest } from '../../src/commands/resume.ts';
import {
  nonEmptyVariables,
  pipelineVariables,
  truncateTask,
} from '../../src/commands/variables.ts';
import { noteHook, type NoteHookInput } from './note-hook.ts';

const rules = { prefix: '/agent', self: { id: 99, username: 'mr-agent-bot' } };

function event(input: NoteHookInput): NoteHookEvent {
  const parsed = parseNoteEvent(noteHook(input));
  if (!parsed.ok) throw new Error(parsed.detail);
  return parsed.event;
}

describe('A2 note event schema (lenient)', () => {
  it('accepts GitLab-shaped bodies and keeps only the fields it reads', () => {
    const parsed = event({ note: 'hi' });
    expect(parsed.object_attributes).to.not.have.property('st_diff');
    expect(parsed).to.not.have.property('repository');
  });

  it('tells a non-note event apart from a broken note event', () => {
    expect(parseNoteEvent({ object_kind: 'push' })).to.deep.include({
      ok: false,
      reason: 'not-a-note-event',
    });
    const broken = noteHook({ note: 'x' });
    delete (broken.object_attributes as Record<string, unknown>).note;
    const result = parseNoteEvent(broken);
    expect(result).to.deep.include({ ok: false, reason: 'invalid-payload' });
    if (!result.ok) expect(result.detail).to.match(/^object_attributes\.note: /);
  });
});

describe('A2 decideNote', () => {
  it('a Developer-style /agent command on an MR becomes a request on the source branch', () => {
    const decision = decideNote(
      event({ note: '/agent fix the typo', discussionId: 'abc', iid: 3 }),
      rules,
    );
    expect(decision).to.deep.equal({
      kind: 'command',
      request: {
        command: 'run',
        instruction: 'fix the typo',
        projectId: 5,
        noteId: 1244,
        discussionId: 'abc',
        target: { kind: 'merge_request', iid: 3, sourceBranch: 'feature/typo', fork: false },
        ref: 'feature/typo',
        user: { id: 11, username: 'dev' },
      },
    });
  });

  it('an issue command runs on the default branch', () => {
    const decision = decideNote(event({ note: '/agent plan x', on: 'issue', iid: 17 }), rules);
    expect(decision.kind).to.equal('command');
    if (decision.kind !== 'command') return;
    expect(decision.request.target).to.deep.equal({ kind: 'issue', iid: 17 });
    expect(decision.request.ref).to.equal('main');
  });

  it('a fork MR runs on the target project default branch', () => {
    const decision = decideNote(event({ note: '/agent x', sourceProjectId: 77 }), rules);
    expect(decision.kind === 'command' && decision.request.ref).to.equal('main');
    expect(decision.kind === 'command' && decision.request.target).to.deep.include({ fork: true });
  });

  it('issue 19 §1 with `trigger.forks: run` a fork MR runs on its own ref, never on a protected branch', () => {
    const run = { ...rules, forks: 'run' as const };
    const fork = decideNote(event({ note: '/agent x', iid: 4, sourceProjectId: 77 }), run);
    expect(fork.kind === 'command' && fork.request.ref).to.equal('refs/merge-requests/4/head');
    const own = decideNote(event({ note: '/agent x', iid: 4, sourceBranch: 'feature/y' }), run);
    expect(own.kind === 'command' && own.request.ref).to.equal('feature/y');
    const patch = decideNote(event({ note: '/agent x', sourceProjectId: 77 }), {
      ...rules,
      forks: 'patch',
    });
    expect(patch.kind === 'command' && patch.request.ref).to.equal('main');
  });

  const ignored: [string, NoteHookInput, string][] = [
    ['system notes', { note: '/agent x', system: true }, 'system-note'],
    ['edited notes', { note: '/agent x', action: 'update' }, 'edited-note'],
    ['its own notes (user id)', { note: '/agent x', user: { id: 99, username: 'x' } }, 'own-note'],
    ['its own notes (marker)', { note: '<!-- mr-agent:reply -->\n/agent x' }, 'own-note'],
    [
      'project access-token bots',
      { note: '/agent x', user: { id: 5, username: 'project_5_bot_3fa2' } },
      'bot-author',
    ],
    [
      'users flagged bot',
      { note: '/agent x', user: { id: 5, username: 'k', bot: true } },
      'bot-author',
    ],
    [
      'internal notes that are no command (issue 19 §6)',
      { note: 'x', internal: true },
      'confidential',
    ],
    [
      'replies on a confidential issue (issue 19 §6)',
      { note: 'x', on: 'issue', confidentialIssue: true },
      'confidential',
    ],
    ['commit comments', { note: '/agent x', on: 'commit' }, 'unsupported-target'],
    ['non-commands', { note: 'LGTM' }, 'not-a-command'],
    ['commands in code blocks', { note: '```\n/agent x\n```' }, 'not-a-command'],
    [
      'an issue in an empty project',
      { note: '/agent x', on: 'issue', defaultBranch: '' },
      'no-ref',
    ],
  ];
  for (const [what, input, reason] of ignored) {
    it(`ignores ${what}`, () => {
      expect(decideNote(event(input), rules)).to.deep.include({ kind: 'ignore', reason });
    });
  }

  const said: Array<[string, NoteHookInput]> = [
    ['in an internal note', { note: '/agent fix the secret bug', internal: true }],
    [
      'on a confidential issue',
      { note: '/agent fix the secret bug', on: 'issue', confidentialIssue: true },
    ],
  ];
  for (const [where, input] of said) {
    it(`a command said ${where} is private, without its instruction; TRIGGER_PAYLOAD skips it (issue 19 §6)`, () => {
      const decision = decideNote(event(input), rules);
      expect(decision.kind).to.equal('private');
      expect(JSON.stringify(decision)).not.to.contain('secret bug');
      expect(interpretTriggerPayload(JSON.stringify(noteHook(input)), rules)).to.deep.include({
        kind: 'skip',
        reason: 'confidential',
      });
    });
  }

  const marked: Array<[string, NoteHookInput]> = [
    [
      'event_type confidential_note on an issue (GitLab marks a comment on a confidential issue so)',
      { note: '/agent fix the secret bug', on: 'issue', eventType: 'confidential_note' },
    ],
    [
      'event_type confidential_note on a merge request',
      { note: '/agent fix the secret bug', eventType: 'confidential_note' },
    ],
  ];
  for (const [what, input] of marked) {
    it(`M5 a command marked only by ${what} starts nothing public, in the bridge and as TRIGGER_PAYLOAD`, () => {
      const decision = decideNote(event(input), rules);
      expect(decision.kind).to.equal('private');
      expect(JSON.stringify(decision)).not.to.contain('secret bug');
      expect(interpretTriggerPayload(JSON.stringify(noteHook(input)), rules)).to.deep.include({
        kind: 'skip',
        reason: 'confidential',
      });
    });
  }

  it('M5 a command delivered with the header `X-Gitlab-Event: Confidential Note Hook` is private whatever the body says', () => {
    const decision = decideNote(event({ note: '/agent fix the secret bug' }), rules, {
      hookEvent: 'Confidential Note Hook',
    });
    expect(decision.kind).to.equal('private');
    expect(JSON.stringify(decision)).not.to.contain('secret bug');
    const plain = decideNote(event({ note: '/agent fix it' }), rules, { hookEvent: 'Note Hook' });
    expect(plain.kind).to.equal('command');
  });

  it('A1 an edited comment never starts a second run: `updated_at` after `created_at` without an action', () => {
    const edited = event({
      note: '/agent fix the typo',
      noAction: true,
      createdAt: '2026-05-17 18:21:36 UTC',
      updatedAt: '2026-05-17 18:25:02 UTC',
    });
    expect(decideNote(edited, rules)).to.deep.include({ kind: 'ignore', reason: 'edited-note' });
    const isoEdited = event({
      note: '/agent fix the typo',
      noAction: true,
      createdAt: '2026-05-17T18:21:36.000Z',
      updatedAt: '2026-05-17T18:21:37.000Z',
    });
    expect(decideNote(isoEdited, rules)).to.deep.include({ kind: 'ignore', reason: 'edited-note' });
    const fresh = event({ note: '/agent fix the typo', noAction: true });
    expect(decideNote(fresh, rules).kind).to.equal('command');
    const updated = event({ note: '/agent fix the typo', action: 'update' });
    expect(decideNote(updated, rules)).to.deep.include({ kind: 'ignore', reason: 'edited-note' });
  });

  it('recognises bot usernames without catching ordinary names', () => {
    for (const name of [
      'support-bot',
      'alert-bot',
      'project_12_bot1',
      'group_3_bot_ab',
      'renovate[bot]',
      'ghost',
      'service_account_group_1_x',
    ]) {
      expect(isBotUser({ username: name }), name).to.equal(true);
    }
    for (const name of ['abbot', 'robot', 'bottomley', 'jane']) {
      expect(isBotUser({ username: name }), name).to.equal(false);
    }
  });
});

describe('F4 decideNote: replies in threads (a possible resume)', () => {
  const thread = { discussionId: 'd-42', type: 'DiscussionNote' };

  it('a reply in a thread that is no command is a reply to look at, with its origin', () => {
    const decision = decideNote(event({ note: 'main, please', ...thread, iid: 3 }), rules);
    expect(decision).to.deep.include({ kind: 'reply' });
    if (decision.kind !== 'reply') return;
    expect(decision.reply).to.deep.equal({
      projectId: 5,
      noteId: 1244,
      discussionId: 'd-42',
      target: { kind: 'merge_request', iid: 3, sourceBranch: 'feature/typo', fork: false },
      ref: 'feature/typo',
      user: { id: 11, username: 'dev' },
    });
  });

  const notReplies: [string, NoteHookInput, string][] = [
    ['a plain comment (no thread)', { note: 'main', discussionId: 'd-1' }, 'not-a-command'],
    ['a diff note', { note: 'main', discussionId: 'd-1', type: 'DiffNote' }, 'not-a-command'],
    [
      'a thread note without a discussion id',
      { note: 'main', type: 'DiscussionNote' },
      'not-a-command',
    ],
    [
      "the agent's own reply",
      { note: 'ok', ...thread, user: { id: 99, username: 'mr-agent-bot' } },
      'own-note',
    ],
    [
      "a bot's reply",
      { note: 'ok', ...thread, user: { id: 5, username: 'renovate[bot]' } },
      'bot-author',
    ],
    ['a note with the marker', { note: '<!-- mr-agent:reply -->\nok', ...thread }, 'own-note'],
    ['an edited reply', { note: 'main', ...thread, action: 'update' }, 'edited-note'],
  ];
  for (const [what, input, reason] of notReplies) {
    it(`${what} is not`, () => {
      expect(decideNote(event(input), rules)).to.deep.include({ kind: 'ignore', reason });
    });
  }

  it('a command written as a reply stays a command', () => {
    const decision = decideNote(event({ note: '/agent retry', ...thread }), rules);
    expect(decision.kind === 'command' && decision.request.command).to.equal('retry');
  });
});

describe('A2 pipeline variables', () => {
  it('names the task, source, command, note, target and user', () => {
    const decision = decideNote(event({ note: '/agent plan add retries', iid: 4 }), rules);
    if (decision.kind !== 'command') throw new Error('expected a command');
    expect(pipelineVariables(decision.request)).to.deep.equal({
      MR_AGENT_TASK: 'add retries',
      MR_AGENT_SOURCE: 'note',
      MR_AGENT_COMMAND: 'plan',
      MR_AGENT_NOTE_ID: '1244',
      MR_AGENT_MR_IID: '4',
      MR_AGENT_TRIGGERED_BY: '11',
    });
  });

  it('F4 a resume names the paused question and carries no task of its own', () => {
    const decision = decideNote(
      event({ note: 'main', discussionId: 'd-42', type: 'DiscussionNote', on: 'issue', iid: 8 }),
      rules,
    );
    if (decision.kind !== 'reply') throw new Error('expected a reply');
    const request = resumeRequest(decision.reply, {
      discussionId: 'd-42',
      noteId: 1200,
      marker: { kind: 'clarification', task: 'task-7', job: '4711', state: 'awaiting_answer' },
    });
    expect(nonEmptyVariables(pipelineVariables(request))).to.deep.equal({
      MR_AGENT_SOURCE: 'note',
      MR_AGENT_COMMAND: 'resume',
      MR_AGENT_NOTE_ID: '1244',
      MR_AGENT_ISSUE_IID: '8',
      MR_AGENT_TRIGGERED_BY: '11',
      MR_AGENT_RESUME_DISCUSSION_ID: 'd-42',
      MR_AGENT_RESUME_QUESTION_NOTE_ID: '1200',
      MR_AGENT_RESUME_TASK_ID: 'task-7',
      MR_AGENT_RESUME_JOB_ID: '4711',
    });
  });

  it('cuts a very long task and says so', () => {
    const cut = truncateTask('a'.repeat(20_000), 100);
    expect(cut).to.have.length(100);
    expect(cut).to.match(/truncated; the full request is in the note\)$/);
  });
});

describe('A3 TRIGGER_PAYLOAD', () => {
  it('turns a command comment into the same request and variables as the bridge', () => {
    const text = JSON.stringify(noteHook({ note: '/agent fix it', on: 'issue', iid: 8 }));
    const decision = interpretTriggerPayload(text, rules);
    expect(decision.kind).to.equal('command');
    if (decision.kind !== 'command') return;
    expect(decision.variables).to.include({ MR_AGENT_ISSUE_IID: '8', MR_AGENT_TASK: 'fix it' });
  });

  it('searches for active runs on the ref the trigger URL fixed', () => {
    const text = JSON.stringify(noteHook({ note: '/agent fix it', sourceBranch: 'feat' }));
    const decision = interpretTriggerPayload(text, rules, { pipelineRef: 'main' });
    expect(decision.kind === 'command' && decision.request.ref).to.equal('main');
  });

  const skips: [string, string | undefined, string][] = [
    ['a missing payload', undefined, 'empty-payload'],
    ['a non-JSON payload', '{nope', 'not-json'],
    ['a push event', JSON.stringify({ object_kind: 'push' }), 'not-a-note-event'],
    ['an ordinary comment', JSON.stringify(noteHook({ note: 'nice work' })), 'not-a-command'],
    ['a quoted command', JSON.stringify(noteHook({ note: '> /agent x' })), 'not-a-command'],
    [
      "a bot's comment",
      JSON.stringify(noteHook({ note: '/agent x', user: { id: 3, username: 'project_5_bot' } })),
      'bot-author',
    ],
  ];
  for (const [what, text, reason] of skips) {
    it(`skips ${what} with a "not a command" message`, () => {
      const decision = interpretTriggerPayload(text, rules);
      expect(decision).to.deep.include({ kind: 'skip', reason });
      if (decision.kind === 'skip') expect(decision.message).to.match(/^not a command: /);
    });
  }
});

describe('issue 30 decideNote: `/agent` in a diff thread asks for what the thread is about', () => {
  const diffThread = {
    discussionId: 'd-7',
    type: 'DiffNote',
    position: { new_path: 'src/calc.js', new_line: 2 },
  };

  it('`/agent fix this` in a diff thread is a run for that thread, with its file and line', () => {
    const decision = decideNote(event({ note: '/agent fix this', ...diffThread }), rules);
    expect(decision.kind).to.equal('command');
    if (decision.kind !== 'command') return;
    expect(decision.request).to.deep.include({ command: 'run', instruction: 'fix this' });
    expect(decision.request.thread).to.deep.equal({
      discussionId: 'd-7',
      path: 'src/calc.js',
      line: 2,
    });
  });

  it('`/agent` alone in a diff thread is that run too, not the help reply', () => {
    const decision = decideNote(event({ note: '/agent', ...diffThread }), rules);
    expect(decision).to.deep.include({ kind: 'command' });
    if (decision.kind !== 'command') return;
    expect(decision.request).to.deep.include({ command: 'run', instruction: '' });
    expect(decision.request.thread?.discussionId).to.equal('d-7');
  });

  it('other verbs in a diff thread keep their meaning; `/agent` alone elsewhere still asks for help', () => {
    for (const verb of ['help', 'status', 'stop', 'review']) {
      const decision = decideNote(event({ note: `/agent ${verb}`, ...diffThread }), rules);
      if (decision.kind !== 'command') throw new Error(`${verb}: ${decision.kind}`);
      expect(decision.request.command).to.equal(verb);
      expect(decision.request.thread).to.equal(undefined);
    }
    const plain = decideNote(event({ note: '/agent', discussionId: 'd-1' }), rules);
    if (plain.kind !== 'command') throw new Error(plain.kind);
    expect(plain.request.command).to.equal('help');
    const threadReply = decideNote(
      event({ note: '/agent fix this', discussionId: 'd-2', type: 'DiscussionNote' }),
      rules,
    );
    if (threadReply.kind !== 'command') throw new Error(threadReply.kind);
    expect(threadReply.request.thread).to.equal(undefined);
  });

  it('a malformed position drops only the position: the thread is still named', () => {
    const hook = noteHook({ note: '/agent', ...diffThread });
    (hook.object_attributes as Record<string, unknown>).position = 'not an object';
    const parsed = parseNoteEvent(hook);
    if (!parsed.ok) throw new Error(parsed.detail);
    const decision = decideNote(parsed.event, rules);
    if (decision.kind !== 'command') throw new Error(decision.kind);
    expect(decision.request.thread).to.deep.equal({
      discussionId: 'd-7',
      path: undefined,
      line: undefined,
    });
  });
});
