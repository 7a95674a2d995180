import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config/load.ts';
import { CancelledError, ExternalServiceError } from '../../src/errors/errors.ts';
import type { ReplanDecisionInput } from '../../src/history/entries.ts';
import type { JsonReply, JsonRequest, LlmPort } from '../../src/core/llm-port.ts';
import { createMemoryLogger } from '../../src/log/logger.ts';
import { Redactor } from '../../src/log/redact.ts';
import { createReplanHook, ReplanManager, replanPrompts } from '../../src/phases/replan/index.ts';
import { replanStateFile, replanStateStore } from '../../src/phases/replan/state.ts';
import { jsonDocuments } from '../../src/history/json-file.ts';
import { FakeClock } from '../../src/core/clock.ts';
import { noReplan, type ReplanCheckpoint } from '../../src/core/hooks.ts';
import type { ActionRecord } from '../../src/core/records.ts';
import type { ScriptedLlm } from '../../src/testkit/scripted-llm.ts';
import { json, scripted, type Step } from '../support/script.ts';
import { action, planWith } from '../support/plans.ts';
import { RecordingTarget } from '../support/recording-target.ts';
import { decision, ScriptedAnswers } from './support.ts';
import { promptLibrary } from '../../src/llm/prompt-files.ts';
import { initialProgress } from '../../src/core/progress/updates.ts';
import type { ProgressState } from '../../src/core/progress/model.ts';
import { renderProgressNote } from '../../src/report/progress/render.ts';

const plan = planWith([action('task_1', 'Write a.txt'), action('task_2', 'Write b.txt')]);

function executed(status: 'success' | 'failure' = 'failure'): ActionRecord {
  return {
    key: 'A1',
    action: action('task_1', 'Write a.txt'),
    status,
    summary: status === 'failure' ? 'EACCES' : 'ok',
    toolCalls: [],
    turns: 1,
    startedAt: 0,
    finishedAt: 1,
  };
}

const at = {
  goal: { point: 'goal_understanding', plan } as ReplanCheckpoint,
  decomposition: { point: 'task_decomposition', plan } as ReplanCheckpoint,
  sequence: { point: 'action_sequence', plan } as ReplanCheckpoint,
  execution: { point: 'execution', plan, action: executed(), remaining: [] } as ReplanCheckpoint,
};

/** The scripted model, taking 1.5 s of (fake) time per call. */
class SlowLlm implements LlmPort {
  constructor(
    readonly inner: ScriptedLlm,
    private readonly clock: FakeClock,
  ) {}
  chat: LlmPort['chat'] = (r) => this.inner.chat(r);
  async json<T>(request: JsonRequest<T>): Promise<JsonReply<T>> {
    this.clock.advance(1500);
    return this.inner.json(request);
  }
}

const dirs: string[] = [];
afterEach(async () => {
  while (dirs.length) await rm(dirs.pop()!, { recursive: true, force: true });
});

async function harness(options: {
  steps: Step[];
  sets?: string[];
  answers?: (clock: FakeClock) => ScriptedAnswers;
  stateDir?: string;
  clock?: FakeClock;
  target?: RecordingTarget;
  language?: 'en' | 'ja';
}) {
  const stateDir = options.stateDir ?? (await mkdtemp(path.join(tmpdir(), 'mr-agent-replan-')));
  if (!options.stateDir) dirs.push(stateDir);
  const { config } = await loadConfig({ env: {}, file: null, sets: options.sets ?? [] });
  const clock = options.clock ?? new FakeClock();
  const redactor = new Redactor();
  const { logger, lines } = createMemoryLogger({ redactor, level: 'debug' });
  const fake = scripted(options.steps);
  const recorded: ReplanDecisionInput[] = [];
  const target = options.target ?? new RecordingTarget();
  let progress: ProgressState = initialProgress({ taskId: 'task-1', title: 'T', startedAt: 0 });
  const file = replanStateFile(stateDir, '12!42');
  const manager = await ReplanManager.open({
    config,
    clock,
    logger,
    llm: new SlowLlm(fake, clock),
    store: replanStateStore(file, jsonDocuments(logger), () => clock.now()),
    prompts: replanPrompts(promptLibrary()),
    recorder: { saveReplanDecision: async (d) => recorded.push(d) },
    notes: {
      target,
      context: { taskId: 'task-1', ...(options.language ? { language: options.language } : {}) },
      redactor,
    },
    progress: { update: (change) => (progress = change(progress)) },
    ...(options.answers ? { answers: options.answers(clock) } : {}),
  });
  /** The progress note as the run would show it now (decisions live in its history). */
  const progressNote = () => renderProgressNote(progress);
  return { manager, fake, recorded, target, lines, stateDir, clock, file, progressNote };
}

const replanJson = (point: string, fields: Record<string, unknown>) =>
  json(`replan.${point}`, decision({ replan_needed: true, confidence: 0.9, ...fields }));

describe('replan: ReplanManager (seed 003 §9, §10, §13)', () => {
  it('§13.1 an unparseable decision means no replan, and is logged and recorded', async () => {
    const h = await harness({
      // the first reply and the three re-asks all miss the schema
      steps: [{ purpose: 'replan.execution', json: { replan_needed: 'maybe' }, times: 4 }],
    });
    expect(await h.manager.decide(at.execution)).to.deep.equal({ kind: 'continue' });
    expect(h.lines.join('\n')).to.contain('replan decision unusable; keeping the plan');
    expect(h.recorded).to.have.length(1);
    expect(h.recorded[0]).to.deep.include({
      executed: false,
      result: 'skipped',
      phase: 'execution',
    });
    expect(h.recorded[0]!.override_reason).to.match(/^unparseable decision: /);
  });

  it('§13.1 a decision inside a markdown code block with prose around it is read', async () => {
    const reply = JSON.stringify(decision({ replan_needed: true, replan_level: 3 }), null, 2);
    const h = await harness({
      steps: [
        {
          purpose: 'replan.execution',
          content: `My decision:\n\n\`\`\`json\n${reply}\n\`\`\`\nThanks.`,
        },
      ],
    });
    expect(await h.manager.decide(at.execution)).to.deep.include({
      kind: 'replan',
      from: 'action_sequence',
    });
  });

  it('§13.1 a failing model service also means no replan; cancellation is not swallowed', async () => {
    const h = await harness({
      steps: [
        { purpose: 'replan.execution', error: new ExternalServiceError('llm', 'HTTP 503') },
        { purpose: 'replan.execution', error: new CancelledError('the run was cancelled') },
      ],
    });
    expect(await h.manager.decide(at.execution)).to.deep.equal({ kind: 'continue' });
    let thrown: unknown;
    await h.manager.decide(at.execution).catch((error: unknown) => (thrown = error));
    expect(thrown).to.be.instanceOf(CancelledError);
  });

  it('§10.1 every decision is recorded with executed, override_reason, result and duration', async () => {
    const h = await harness({
      steps: [
        json('replan.execution', decision()),
        replanJson('execution', { replan_level: 2, reasoning: 'Use a patch.' }),
        json('replan.action_sequence', decision()),
      ],
    });
    await h.manager.decide(at.execution);
    const directive = await h.manager.decide(at.execution);
    expect(directive).to.deep.include({ kind: 'replan', from: 'remaining_actions' });
    h.clock.advance(4000);
    await h.manager.decide(at.goal); // not redone after a level-2 replan: no model call
    await h.manager.decide(at.sequence);
    expect(
      h.recorded.map((d) => [d.replan_id, d.executed, d.override_reason, d.result, d.duration_ms]),
    ).to.deep.equal([
      ['replan-1', false, null, 'skipped', 1500],
      ['replan-2', true, null, 'pending', 1500],
      ['replan-2', true, null, 'success', 4000],
      ['replan-3', false, null, 'skipped', 1500],
    ]);
    expect(h.recorded[2]!.plan_after).to.deep.equal(plan);
    h.fake.assertAllUsed();
  });

  it('a replan still in flight when the run ends is recorded as a failure', async () => {
    const h = await harness({ steps: [replanJson('execution', { replan_level: 4 })] });
    await h.manager.decide(at.execution);
    await h.manager.ended({ state: 'FAILED', reason: 'error' });
    expect(h.recorded.map((d) => d.result)).to.deep.equal(['pending', 'failure']);
  });

  it('§13.4 confidence below 0.3 keeps the plan: logged and recorded, no note', async () => {
    const h = await harness({ steps: [replanJson('execution', { confidence: 0.2 })] });
    expect(await h.manager.decide(at.execution)).to.deep.equal({ kind: 'continue' });
    expect(h.recorded[0]!.override_reason).to.contain('below 30%: keeping the current plan');
    expect(h.target.creates).to.equal(0);
    expect(h.lines.join('\n')).to.contain('replan overridden');
  });

  it('§9.3 0.5–0.8 replans with a warning; the decision is in the progress note, no note of its own', async () => {
    const h = await harness({
      steps: [replanJson('execution', { confidence: 0.6, replan_level: 3 })],
    });
    expect(await h.manager.decide(at.execution)).to.deep.include({
      kind: 'replan',
      from: 'action_sequence',
    });
    expect(h.lines.join('\n')).to.contain('replan with moderate confidence');
    expect(h.target.creates).to.equal(0);
    expect(h.progressNote()).to.contain('started at execution');
  });

  describe('§9.3 0.3–0.5 asks the user whether to replan', () => {
    const low = replanJson('execution', { confidence: 0.4, replan_level: 2 });
    for (const [reply, expected] of [
      ['Yes, go ahead.', 'replan'],
      ['No, keep going.', 'continue'],
    ] as const) {
      it(`a reply "${reply}" → ${expected}`, async () => {
        const h = await harness({
          steps: [low],
          answers: (clock) => {
            const a = new ScriptedAnswers(() => clock.now());
            a.add(reply, { at: clock.now() + 60_000 });
            return a;
          },
        });
        expect((await h.manager.decide(at.execution)).kind).to.equal(expected);
        expect(h.target.calls[0]!.body).to.contain(
          'I am not sure whether to re-plan the remaining steps (confidence 40%)',
        );
        expect(h.manager.statistics().counters.buckets.clarifications).to.equal(1);
      });
    }

    it('I1 in a Japanese run the question is asked in Japanese, and はい confirms it', async () => {
      const h = await harness({
        steps: [low],
        language: 'ja',
        answers: (clock) => {
          const a = new ScriptedAnswers(() => clock.now());
          a.add('はい', { at: clock.now() + 60_000 });
          return a;
        },
      });
      expect((await h.manager.decide(at.execution)).kind).to.equal('replan');
      const asked = h.target.calls[0]!.body;
      expect(asked).to.contain(
        '「残りのステップを再計画」をすべきか確信がありません（確信度 40%）',
      );
      expect(asked).to.contain('現在の計画を続けます').and.not.contain('I am not sure');
    });

    it('without an answer the current plan is kept after the wait', async () => {
      const h = await harness({
        steps: [low],
        answers: (clock) => new ScriptedAnswers(() => clock.now()),
      });
      expect(await h.manager.decide(at.execution)).to.deep.equal({ kind: 'continue' });
      expect(h.clock.sleeps.reduce((a, b) => a + b, 0)).to.equal(30 * 60_000);
      expect(h.recorded.at(-1)!.override_reason).to.contain('nobody confirmed');
    });

    it('with auto_assume_timeout_minutes 0 nobody is asked and the plan is kept', async () => {
      const h = await harness({
        steps: [low],
        sets: ['planning.replanning.goal_understanding.auto_assume_timeout_minutes=0'],
      });
      expect(await h.manager.decide(at.execution)).to.deep.equal({ kind: 'continue' });
      expect(h.target.creates).to.equal(0);
    });
  });

  describe('§9.4 escalation when a replan cannot be carried out', () => {
    const partial = replanJson('execution', { replan_level: 2, reasoning: 'Another way.' });

    async function limited(steps: Step[], sets: string[] = []) {
      const h = await harness({
        steps,
        sets: ['planning.replanning.execution.max_partial_replans=0', ...sets],
      });
      return h;
    }

    it('the model may choose an allowed alternative; it is carried out and counted in its own limit', async () => {
      const h = await limited([
        partial,
        json('replan.escalation', {
          choice: 'regenerate_action_sequence',
          reasoning: 'Fresh plan.',
        }),
      ]);
      const directive = await h.manager.decide(at.execution);
      expect(directive).to.deep.include({ kind: 'replan', from: 'action_sequence' });
      const prompt = h.fake.calls[1]!.messages.find((m) => m.role === 'user')!.content;
      expect(prompt).to.contain('0 of 0 (planning.replanning.execution.max_partial_replans)');
      expect(prompt).not.to.contain('`replan_remaining_actions`');
      expect(h.manager.statistics().counters).to.deep.include({
        total: 1,
        buckets: { regenerations: 1 },
      });
      expect(h.target.creates).to.equal(0);
      expect(h.progressNote())
        .to.contain('was not carried out: ')
        .and.contain('it chose instead to regenerate the actions');
    });

    it('an option that was not offered counts as no alternative', async () => {
      const h = await limited([
        partial,
        json('replan.escalation', { choice: 'replan_remaining_actions', reasoning: 'Again.' }),
      ]);
      expect(await h.manager.decide(at.execution)).to.deep.equal({ kind: 'continue' });
    });

    it('no alternative, auto_assume_on_no_response off: the run stops for instructions', async () => {
      const h = await limited(
        [partial, json('replan.escalation', { choice: 'none', reasoning: 'Nothing else works.' })],
        ['planning.replanning.goal_understanding.auto_assume_on_no_response=false'],
      );
      const directive = await h.manager.decide(at.execution);
      expect(directive.kind).to.equal('stop');
      expect(h.progressNote()).to.contain('the run stopped to wait for instructions');
    });
  });

  it('after the total limit is reached no further decision is requested', async () => {
    const h = await harness({
      steps: [
        replanJson('execution', { replan_level: 1 }),
        replanJson('execution', { replan_level: 1 }),
      ],
      sets: ['planning.replanning.global.max_total_replans=1'],
    });
    expect(await h.manager.decide(at.execution)).to.deep.include({ kind: 'retry_action' });
    expect(await h.manager.decide(at.execution)).to.deep.equal({ kind: 'continue' });
    expect(h.recorded.at(-1)!.override_reason).to.contain('global.max_total_replans = 1');
    expect(await h.manager.decide(at.execution)).to.deep.equal({ kind: 'continue' });
    expect(await h.manager.decide(at.goal)).to.deep.equal({ kind: 'continue' });
    h.fake.assertAllUsed();
  });

  it('after a restart only the redone planning phases are judged again', async () => {
    const h = await harness({
      steps: [
        replanJson('action_sequence', { replan_type: 'action_regeneration' }),
        json('replan.action_sequence', decision()),
        replanJson('execution', { replan_level: 4 }),
        json('replan.task_decomposition', decision()),
        json('replan.action_sequence', decision()),
      ],
    });
    await h.manager.decide(at.sequence);
    await h.manager.decide(at.goal);
    await h.manager.decide(at.decomposition);
    await h.manager.decide(at.sequence);
    await h.manager.decide(at.execution);
    await h.manager.decide(at.goal);
    await h.manager.decide(at.decomposition);
    await h.manager.decide(at.sequence);
    h.fake.assertAllUsed();
  });

  it('a clarification over its limit goes on with the current plan and says so', async () => {
    const h = await harness({
      steps: [
        replanJson('goal_understanding', {
          clarification_needed: true,
          clarification_questions: ['Which branch?'],
        }),
      ],
      sets: ['planning.replanning.goal_understanding.max_clarification_requests=0'],
    });
    expect(await h.manager.decide(at.goal)).to.deep.equal({ kind: 'continue' });
    expect(h.progressNote())
      .to.contain('was not carried out')
      .and.contain('max_clarification_requests');
  });

  describe('§10.2 state across a pause', () => {
    const ask = replanJson('goal_understanding', {
      clarification_needed: true,
      clarification_questions: ['Which branch?'],
      assumptions_to_make: ['main'],
    });
    const paused = ['planning.replanning.goal_understanding.auto_assume_timeout_minutes=0'];

    it('a run that stops awaiting an answer keeps its counters for the run that resumes it', async () => {
      const first = await harness({
        steps: [
          replanJson('execution', { replan_level: 2 }),
          json('replan.action_sequence', decision()),
          ask,
        ],
        sets: paused,
      });
      await first.manager.decide(at.execution);
      await first.manager.decide(at.sequence);
      const directive = await first.manager.decide(at.goal);
      expect(directive).to.deep.include({
        kind: 'clarify',
        posted: true,
        questions: ['Which branch?'],
      });
      await first.manager.ended({ state: 'FAILED', reason: 'clarification_needed' });

      const second = await harness({
        steps: [],
        sets: paused,
        stateDir: first.stateDir,
        target: first.target,
        answers: (clock) => {
          const a = new ScriptedAnswers(() => clock.now());
          a.add('release');
          return a;
        },
      });
      expect(second.manager.statistics()).to.deep.equal({
        decisions: 3,
        counters: {
          total: 2,
          buckets: { partial_replans: 1, clarifications: 1 },
          retries: {},
          triggers: { 'execution:task_1:L2': 1, 'goal_understanding:clarify': 1 },
        },
      });
      const resumed = await second.manager.decide(at.goal);
      expect(resumed).to.deep.include({ kind: 'replan', from: 'goal_understanding' });
      expect(resumed.kind === 'replan' && resumed.reason).to.contain('@dana: release');
    });

    it('a cancelled run is paused too; a finished one leaves fresh counters (ids go on)', async () => {
      const first = await harness({ steps: [replanJson('execution', { replan_level: 2 })] });
      await first.manager.decide(at.execution);
      await first.manager.ended({ state: 'FAILED', reason: 'cancelled' });
      const second = await harness({ steps: [], stateDir: first.stateDir });
      expect(second.manager.statistics().counters.total).to.equal(1);
      await second.manager.ended({ state: 'COMPLETE', reason: 'completed' });
      const third = await harness({ steps: [], stateDir: first.stateDir });
      expect(third.manager.statistics()).to.deep.equal({
        decisions: 1,
        counters: { total: 0, buckets: {}, retries: {}, triggers: {} },
      });
    });
  });

  it('J2 planning.replanning.enabled=false (REPLANNING_ENABLED) gives the hook that always continues', async () => {
    const stateDir = await mkdtemp(path.join(tmpdir(), 'mr-agent-replan-'));
    dirs.push(stateDir);
    const { config } = await loadConfig({
      env: { REPLANNING_ENABLED: 'false' },
      file: null,
      sets: [],
    });
    const { logger } = createMemoryLogger({ redactor: new Redactor() });
    const hook = await createReplanHook({
      config,
      prompts: replanPrompts(promptLibrary()),
      clock: new FakeClock(),
      logger,
      redactor: new Redactor(),
      stateDir,
      documents: jsonDocuments(logger),
      key: 'task-1',
    });
    expect(hook).to.equal(noReplan);
    expect(existsSync(path.join(stateDir, 'replan'))).to.equal(false);
  });
});
