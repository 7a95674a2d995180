import { expect } from 'chai';
import { parseMarker } from '../../src/report/marker.ts';
import { JobWorld } from '../ci/job-world.ts';
import { englishWords, renderGitLab, visibleText } from '../support/gitlab-markdown.ts';
import { templateLeaks, visibleInternalIds } from '../support/template-words.ts';

const REQUEST = 'テストが失敗しています。修正してください';
const FAREWELL = 'export function farewell(name) {\n  return `Bye, ${name}!`;\n}\n';

/** What a model asked for Japanese answers writes (the plan of seed 001 §7.4.3, in Japanese). */
const plan = {
  phase: 'planning',
  goal_understanding: {
    main_objective: '失敗しているテストが通るように farewell() を追加する',
    success_criteria: ['src/farewell.js に farewell() がある', 'テストが成功する'],
    constraints: ['公開 API は変えない'],
    context: 'テストは src/farewell.js を必要としています。',
  },
  task_decomposition: {
    reasoning: 'ファイルを一つ追加すれば足ります。',
    subtasks: [
      {
        id: 'task_1',
        description: 'farewell() を追加する',
        dependencies: [],
        estimated_complexity: 'low',
        required_tools: ['write_file'],
      },
    ],
  },
  action_plan: {
    execution_order: ['task_1'],
    actions: [
      {
        task_id: 'task_1',
        action_type: 'tool_call',
        tool: 'write_file',
        purpose: 'src/farewell.js に farewell() を書く',
        expected_outcome: 'ファイルができている',
        fallback_strategy: '別の方法でファイルを書く',
      },
    ],
  },
  selected_environment: {
    name: 'node',
    reason: 'package.json があります',
    detected_files: ['package.json'],
    setup_commands: [],
    verification: [{ command: 'node -e \'console.log("OK")\'', expected_output: 'OK' }],
  },
  comment: '計画ができました。実行を始めます。',
};

const replies = [
  { purpose: 'planning', json: plan },
  {
    purpose: 'execution',
    tool_calls: [{ name: 'write_file', arguments: { path: 'src/farewell.js', content: FAREWELL } }],
  },
  { purpose: 'execution', content: 'DONE: farewell() を追加しました' },
  {
    purpose: 'completion',
    json: {
      type: 'completion_assessment',
      summary: 'src/farewell.js に farewell() を追加し、テストが成功するようになりました。',
      details: { passed_criteria: ['AC-1', 'AC-2'], remaining_risks: [] },
      all_criteria_satisfied: true,
    },
  },
];

/** Words of the model's own text: they may be English (names of functions); templates may not. */
function modelWords(): Set<string> {
  return new Set(JSON.stringify(replies).match(/[A-Za-z][A-Za-z'’]+/g) ?? []);
}

/** Names of things, not template words. */
const NAMES = ['mr', 'agent', 'UTC', 'GitLab', 'CI', 'LLM', 'API', 'HTTP'];

/**
 * Every note the agent posted, rendered as GitLab shows it: no English word
 * outside code and links, but names and what the model itself wrote.
 */
function expectNoEnglish(world: JobWorld, allowed: ReadonlySet<string>): void {
  const bot = world.standIn.model.notes.filter((n) => n.authorId === world.s.bot.id);
  expect(bot.length).to.be.greaterThan(0);
  for (const note of bot) {
    const kind = parseMarker(note.body)?.kind ?? 'note';
    const words = englishWords(renderGitLab(note.body)).filter((w) => !allowed.has(w));
    expect(words, `${kind} note: English template words\n${note.body}`).to.deep.equal([]);
    // the same, by the catalog's own English words; and no internal id outside the folds
    expect(templateLeaks(note.body, allowed), `${kind} note: catalog words`).to.deep.equal([]);
    expect(visibleInternalIds(note.body), `${kind} note: internal ids`).to.deep.equal([]);
  }
}

/** The planner finds the goal unclear (seed 001 §10.1.1) and asks, in Japanese. */
const unclear = {
  purpose: 'planning',
  json: {
    phase: 'planning',
    error: {
      type: 'unclear_goal',
      message: 'どのファイルを直すのかが書かれていません。',
      clarification_needed: ['farewell() はどのファイルに置きますか？'],
    },
    comment: '確認させてください。',
  },
};

/**
 * Issue #23 done-when: a stand-in end-to-end run (`mr-agent ci` against the
 * GitLab stand-in and the scripted model over HTTP) on a Japanese request.
 */
describe('#23 a Japanese request gets Japanese notes (stand-in end to end)', function () {
  this.timeout(90_000);
  let world: JobWorld;

  beforeEach(async () => {
    world = await JobWorld.start();
  });
  afterEach(async () => {
    await world.close();
  });

  it('#23 `/agent テストが失敗しています。修正してください`: Japanese progress and summary notes, no English template words outside code and links; markers stay language-neutral', async () => {
    const noteId = world.comment(`/agent ${REQUEST}`);
    const job = await world.job({
      replies,
      variables: {
        MR_AGENT_SOURCE: 'note',
        MR_AGENT_COMMAND: 'run',
        MR_AGENT_TASK: REQUEST,
        MR_AGENT_NOTE_ID: String(noteId),
        MR_AGENT_MR_IID: String(world.s.mergeRequest.iid),
        MR_AGENT_TRIGGERED_BY: String(world.s.developer.id),
      },
    });
    expect(job.code, job.stderr).to.equal(0);
    job.llm.assertAllUsed();

    const bot = world.standIn.model.notes.filter((n) => n.authorId === world.s.bot.id);
    const progress = bot.find((n) => parseMarker(n.body)?.kind === 'progress')!.body;
    const summary = bot.find((n) => parseMarker(n.body)?.kind === 'summary')!.body;
    expect(parseMarker(progress)).to.include({ kind: 'progress', state: 'complete' });
    expect(parseMarker(summary)).to.include({ kind: 'summary', state: 'complete' });

    const allowed = new Set([...NAMES, ...modelWords()]);
    for (const [name, body] of [
      ['progress', progress],
      ['summary', summary],
    ] as const) {
      const note = renderGitLab(body);
      const [head, change, next] = visibleText(note);
      // the closing reply @mentions the requester and points at the progress note
      expect(head, name).to.match(
        name === 'summary'
          ? /^@dev, ✅ 完了 · テストが失敗しています/
          : /^✅ 完了 · テストが失敗しています/,
      );
      expect(change, name).to.match(/を feature\/greeting にプッシュしました/);
      expect(next, name).to.match(
        name === 'summary'
          ? /^詳細と次にすることは進捗ノートにあります。/
          : /^次にすること: コミットを確認してください。/,
      );
      expect(note.softBreaks, name).to.deep.equal([]);
      expect(
        englishWords(note).filter((w) => !allowed.has(w)),
        `${name}: English template words`,
      ).to.deep.equal([]);
    }
    expect(progress).to.contain('受け入れ条件').and.contain('実行の詳細');

    expectNoEnglish(world, allowed);

    // the prompts stay English; the model is asked to write its people-facing text in Japanese
    const system = JSON.stringify(job.llm.requests[0]!.messages);
    expect(system).to.contain('Language of your answers').and.contain('in Japanese');
  });
  it('#23 #24 a Japanese request whose model endpoint refuses the key: the failed notes say what to do in Japanese (the error catalog’s hint), the English error text only as code', async () => {
    const noteId = world.comment(`/agent ${REQUEST}`);
    const job = await world.job({
      replies: [
        {
          purpose: 'planning',
          fault: { status: 401, message: 'Incorrect API key provided.', code: 'invalid_api_key' },
        },
      ],
      variables: {
        MR_AGENT_SOURCE: 'note',
        MR_AGENT_COMMAND: 'run',
        MR_AGENT_TASK: REQUEST,
        MR_AGENT_NOTE_ID: String(noteId),
        MR_AGENT_MR_IID: String(world.s.mergeRequest.iid),
        MR_AGENT_TRIGGERED_BY: String(world.s.developer.id),
      },
    });
    expect(job.code, job.stderr).to.equal(1);
    const progress = world.progressNotes().at(-1)!.body;
    expect(parseMarker(progress)).to.include({ kind: 'progress', state: 'failed' });
    const [head, change, next] = visibleText(renderGitLab(progress));
    expect(head).to.match(/^❌ 失敗/);
    expect(change).to.match(/^エラー: /);
    // blamed by the status: the refused key and the variable that holds it, not "a service failed"
    expect(next).to.match(
      /^次にすること: モデルのエンドポイントがキーを拒否しました（HTTP 401）。[A-Z_]+ のキーを確認してください。/,
    );
    expect(next).to.not.contain('障害');
    expectNoEnglish(world, new Set(NAMES));
  });

  it('#23 #24 a Japanese request that needs an answer: the ❓ thread mentions the requester and, like the progress note, is all Japanese', async () => {
    await world.standIn.model.commit(
      world.s.project,
      world.s.project.defaultBranch,
      {
        '.mr-agent.yml':
          'planning:\n  replanning:\n    goal_understanding:\n      auto_assume_timeout_minutes: 0\n',
      },
      { message: 'Stop on questions' },
    );
    const noteId = world.comment(`/agent ${REQUEST}`);
    const job = await world.job({
      replies: [unclear],
      variables: {
        MR_AGENT_SOURCE: 'note',
        MR_AGENT_COMMAND: 'run',
        MR_AGENT_TASK: REQUEST,
        MR_AGENT_NOTE_ID: String(noteId),
        MR_AGENT_MR_IID: String(world.s.mergeRequest.iid),
        MR_AGENT_TRIGGERED_BY: String(world.s.developer.id),
        REPLANNING_ENABLED: 'true',
      },
    });
    expect(job.code, job.stderr).to.equal(1);
    const question = world.standIn.model.notes.find(
      (n) => parseMarker(n.body)?.kind === 'clarification',
    )!;
    expect(world.standIn.model.discussions.get(question.discussionId)?.individual).to.equal(false);
    expect(question.body).to.contain(`@${world.s.developer.username}`);
    expect(parseMarker(world.progressNotes().at(-1)!.body)?.state).to.equal('awaiting_answer');
    const modelText = new Set(JSON.stringify(unclear).match(/[A-Za-z][A-Za-z'’]+/g) ?? []);
    expectNoEnglish(world, new Set([...NAMES, ...modelText]));
  });
});
