import { expect } from 'chai';
import { loadConfig } from '../../src/config/load.ts';
import type { Config } from '../../src/config/options.ts';
import {
  countReplan,
  emptyCounters,
  evaluate,
  type ReplanCounters,
  type Verdict,
} from '../../src/phases/replan/control.ts';
import type { Bucket, Resolved } from '../../src/phases/replan/levels.ts';

async function config(sets: string[] = []): Promise<Config> {
  return (await loadConfig({ env: {}, file: null, sets })).config;
}

const partial: Resolved = { kind: 'replan', level: 2, bucket: 'partial_replans' };

function verdictFor(
  cfg: Config,
  input: { confidence: number; resolved?: Resolved; counters?: ReplanCounters },
): Verdict {
  return evaluate({
    resolved: input.resolved ?? partial,
    confidence: input.confidence,
    trigger: 'execution:task_1:L2',
    action: 'task_1: Do it',
    counters: input.counters ?? emptyCounters(),
    config: cfg,
  });
}

function counters(fields: Partial<ReplanCounters>): ReplanCounters {
  return { ...emptyCounters(), ...fields };
}

describe('replan: controls (seed 003 §9)', () => {
  describe('F3 §9.3 confidence bands', () => {
    const bands: Array<[number, string]> = [
      [1, 'execute'],
      [0.8, 'execute'],
      [0.79, 'execute+warning'],
      [0.5, 'execute+warning'],
      [0.49, 'confirm'],
      [0.3, 'confirm'],
      [0.29, 'keep:very_low_confidence'],
      [0, 'keep:very_low_confidence'],
    ];
    for (const [confidence, expected] of bands) {
      it(`confidence ${confidence} → ${expected}`, async () => {
        const v = verdictFor(await config(), { confidence });
        const shown =
          v.kind === 'execute'
            ? v.warning
              ? 'execute+warning'
              : 'execute'
            : v.kind === 'keep'
              ? `keep:${v.override?.kind}`
              : v.kind;
        expect(shown).to.equal(expected);
      });
    }

    it('0.3–0.5 keeps the plan when require_user_confirmation_on_low_confidence is off', async () => {
      const cfg = await config([
        'planning.replanning.llm_decision.require_user_confirmation_on_low_confidence=false',
      ]);
      const v = verdictFor(cfg, { confidence: 0.4 });
      expect(v).to.deep.include({ kind: 'keep' });
      expect(v.kind === 'keep' && v.override?.reason).to.contain('min_confidence_threshold 50%');
    });

    it('REPLANNING_MIN_CONFIDENCE moves the line between asking and replanning', async () => {
      const { config: cfg } = await loadConfig({
        env: { REPLANNING_MIN_CONFIDENCE: '0.7' },
        file: null,
        sets: [],
      });
      expect(verdictFor(cfg, { confidence: 0.65 }).kind).to.equal('confirm');
      expect(verdictFor(cfg, { confidence: 0.7 }).kind).to.equal('execute');
    });

    it('asking the user needs a question left (max_clarification_requests)', async () => {
      const v = verdictFor(await config(), {
        confidence: 0.4,
        counters: counters({ buckets: { clarifications: 2 } }),
      });
      expect(v.kind).to.equal('keep');
      expect(v.kind === 'keep' && v.override?.reason).to.contain(
        'goal_understanding.max_clarification_requests',
      );
    });
  });

  describe('F3 §9.1 limits per phase and in total', () => {
    const limits: Array<[Bucket, number, string, Resolved]> = [
      [
        'clarifications',
        2,
        'goal_understanding.max_clarification_requests',
        { kind: 'clarify', bucket: 'clarifications' },
      ],
      [
        'clarifications',
        2,
        'goal_understanding.max_clarification_requests',
        { kind: 'replan', level: 5, bucket: 'clarifications' },
      ],
      [
        'redecompositions',
        3,
        'task_decomposition.max_redecomposition_attempts',
        { kind: 'replan', level: 4, bucket: 'redecompositions' },
      ],
      [
        'regenerations',
        3,
        'action_sequence.max_regeneration_attempts',
        { kind: 'replan', level: 3, bucket: 'regenerations' },
      ],
      ['partial_replans', 2, 'execution.max_partial_replans', partial],
      [
        'plan_revisions',
        2,
        'reflection.max_plan_revisions',
        { kind: 'replan', level: 2, bucket: 'plan_revisions' },
      ],
    ];
    for (const [bucket, limit, option, resolved] of limits) {
      it(`${option} (default ${limit}): allowed below, blocked at the limit`, async () => {
        const cfg = await config();
        const below = verdictFor(cfg, {
          confidence: 0.9,
          resolved,
          counters: counters({ buckets: { [bucket]: limit - 1 } }),
        });
        expect(below.kind).to.be.oneOf(['execute', 'clarify']);
        const at = verdictFor(cfg, {
          confidence: 0.9,
          resolved,
          counters: counters({ buckets: { [bucket]: limit } }),
        });
        expect(at).to.deep.equal({
          kind: 'blocked',
          override: {
            kind: 'phase_limit',
            reason: `limit reached: ${limit} of ${limit} (planning.replanning.${option})`,
            facts: {
              kind: 'phase_limit',
              used: limit,
              limit,
              option: `planning.replanning.${option}`,
            },
          },
        });
      });
    }

    it('execution.max_action_retries (default 3) counts retries of each action', async () => {
      const cfg = await config();
      const retry: Resolved = { kind: 'replan', level: 1, bucket: 'action_retries' };
      const other = verdictFor(cfg, {
        confidence: 0.9,
        resolved: retry,
        counters: counters({ retries: { 'task_2: Other': 3 } }),
      });
      expect(other.kind).to.equal('execute');
      const same = verdictFor(cfg, {
        confidence: 0.9,
        resolved: retry,
        counters: counters({ retries: { 'task_1: Do it': 3 } }),
      });
      expect(same.kind === 'blocked' && same.override.reason).to.contain(
        'execution.max_action_retries',
      );
    });

    it('global.max_total_replans (default 10, MAX_TOTAL_REPLANS) blocks every kind', async () => {
      const cfg = await config();
      const v = verdictFor(cfg, { confidence: 0.9, counters: counters({ total: 10 }) });
      expect(v).to.deep.include({ kind: 'blocked' });
      expect(v.kind === 'blocked' && v.override).to.deep.equal({
        kind: 'total_limit',
        reason:
          'limit reached: 10 replans so far (planning.replanning.global.max_total_replans = 10)',
        facts: {
          kind: 'total_limit',
          used: 10,
          limit: 10,
          option: 'planning.replanning.global.max_total_replans',
        },
      });
      const { config: env } = await loadConfig({
        env: { MAX_TOTAL_REPLANS: '12' },
        file: null,
        sets: [],
      });
      expect(verdictFor(env, { confidence: 0.9, counters: counters({ total: 10 }) }).kind).to.equal(
        'execute',
      );
    });
  });

  describe('F3 §9.2 overrides', () => {
    it('loop detection: the same trigger more than same_trigger_max_count times is blocked', async () => {
      const cfg = await config();
      const twice = counters({ triggers: { 'execution:task_1:L2': 2 } });
      const once = counters({ triggers: { 'execution:task_1:L2': 1 } });
      expect(verdictFor(cfg, { confidence: 0.9, counters: once }).kind).to.equal('execute');
      const v = verdictFor(cfg, { confidence: 0.9, counters: twice });
      expect(v.kind === 'blocked' && v.override.kind).to.equal('loop');
      expect(v.kind === 'blocked' && v.override.reason).to.contain('same_trigger_max_count = 2');
    });

    it('loop detection off (infinite_loop_detection: false) lets the trigger repeat', async () => {
      const cfg = await config(['planning.replanning.global.infinite_loop_detection=false']);
      const many = counters({ triggers: { 'execution:task_1:L2': 9 } });
      expect(verdictFor(cfg, { confidence: 0.9, counters: many }).kind).to.equal('execute');
    });

    it('another trigger is not a repeat', async () => {
      const cfg = await config();
      const other = counters({ triggers: { 'execution:task_2:L2': 5 } });
      expect(verdictFor(cfg, { confidence: 0.9, counters: other }).kind).to.equal('execute');
    });

    it('a limit is checked before the loop; very low confidence before both', async () => {
      const cfg = await config();
      const both = counters({
        buckets: { partial_replans: 2 },
        triggers: { 'execution:task_1:L2': 2 },
      });
      const v = verdictFor(cfg, { confidence: 0.9, counters: both });
      expect(v.kind === 'blocked' && v.override.kind).to.equal('phase_limit');
      const low = verdictFor(cfg, { confidence: 0.1, counters: both });
      expect(low.kind === 'keep' && low.override?.kind).to.equal('very_low_confidence');
    });

    it('no replan asked: nothing to override', async () => {
      expect(
        verdictFor(await config(), { confidence: 0.1, resolved: { kind: 'none' } }),
      ).to.deep.equal({ kind: 'keep' });
    });
  });

  describe('counting', () => {
    it('a replan counts in total, its bucket and its trigger; a retry per action', () => {
      let c = countReplan(emptyCounters(), partial, { trigger: 'execution:task_1:L2' });
      c = countReplan(
        c,
        { kind: 'replan', level: 1, bucket: 'action_retries' },
        { trigger: 'execution:task_1:L1', action: 'task_1: Do it' },
      );
      expect(c).to.deep.equal({
        total: 2,
        buckets: { partial_replans: 1 },
        retries: { 'task_1: Do it': 1 },
        triggers: { 'execution:task_1:L2': 1, 'execution:task_1:L1': 1 },
      });
    });
  });
});
