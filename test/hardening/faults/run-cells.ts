import { expect } from 'chai';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseMarker } from '../../../src/report/marker.ts';
import type { ScriptedReplyInput } from '../../../src/testkit/openai-server/scenario.ts';
import { action, assessment, planWith } from '../../support/plans.ts';
import { fillDiskAfter } from '../../support/disk-full.ts';
import { runCi, type CiRun, type CiRunOptions } from '../support/ci-run.ts';

/**
 * Faults during a whole run, CI-shaped (notes on the GitLab stand-in, state
 * files in the checkout): the run must end with its final state in the
 * progress note — never "running" — and the history written before the
 * fault must still be there.
 */
export const PHASES = ['planning', 'execution', 'completion'] as const;
export type LlmPhase = (typeof PHASES)[number];

export interface LlmFault {
  name: string;
  reply: ScriptedReplyInput;
  /** How many times the fault is answered (enough to use up retries or re-asks). */
  times: number;
}

export const LLM_FAULTS: readonly LlmFault[] = [
  { name: 'LLM 429', reply: { fault: 'rate_limit', retry_after: 1 }, times: 3 },
  { name: 'LLM 5xx', reply: { fault: 'server_error' }, times: 3 },
  { name: 'LLM timeout', reply: { fault: 'hang' }, times: 3 },
  { name: 'LLM broken body', reply: { fault: 'malformed' }, times: 3 },
  { name: 'LLM connection reset', reply: { fault: 'reset' }, times: 3 },
  { name: 'LLM garbage reply', reply: { content: '¯\\_(ツ)_/¯ {"plan": [' }, times: 4 },
];

/** The replies of a run that writes answer.txt and completes. */
export function happyReplies(): ScriptedReplyInput[] {
  return [
    { purpose: 'planning', json: planWith([action('task_1', 'Write the answer')]) },
    {
      purpose: 'execution',
      tool_calls: [{ name: 'write_file', arguments: { path: 'answer.txt', content: '42\n' } }],
    },
    { purpose: 'execution', content: 'DONE: wrote answer.txt' },
    { purpose: 'completion', json: assessment(true) },
  ];
}

/** The happy replies up to `phase`, whose replies are a persistent fault. */
function withFault(phase: LlmPhase, fault: LlmFault): ScriptedReplyInput[] {
  const replies = happyReplies();
  const before = replies.slice(
    0,
    replies.findIndex((r) => r.purpose === phase),
  );
  return [...before, { ...fault.reply, purpose: phase, times: fault.times }];
}

/** Prose from the executor is a legitimate end of an action, not a fault. */
export function applies(phase: LlmPhase, fault: LlmFault): boolean {
  return !(phase === 'execution' && fault.name === 'LLM garbage reply');
}

export interface RunFacts {
  finalState: string | undefined;
  notes: number;
  runs: string[];
  history: string[];
}

/** What the run left: the progress note's final state, run records and history entries. */
export async function runFacts(run: CiRun): Promise<RunFacts> {
  const notes = run.standIn.model.notes.filter((n) => n.authorId === run.s.bot.id);
  const progress = notes.filter((n) => parseMarker(n.body)?.kind === 'progress');
  const stateDir = path.join(run.checkout, '.mr-agent');
  const runsText = await readFile(path.join(stateDir, 'runs.json'), 'utf8').catch(() => '');
  const runs = runsText ? (JSON.parse(runsText) as { runs: { state: string }[] }).runs : [];
  const historyDir = path.join(stateDir, 'planning_history');
  const history: string[] = [];
  for (const name of await readdir(historyDir).catch(() => [] as string[])) {
    const text = await readFile(path.join(historyDir, name), 'utf8');
    for (const line of text.split('\n').filter(Boolean))
      history.push((JSON.parse(line) as { type: string }).type);
  }
  expect(progress, 'one progress note').to.have.length(1);
  return {
    finalState: parseMarker(progress[0]!.body)?.state,
    notes: notes.length,
    runs: runs.map((r) => r.state),
    history,
  };
}

function describeFacts(facts: RunFacts): string {
  const history = facts.history.length > 0 ? facts.history.join('+') : 'none yet';
  return `final "${facts.finalState}", runs.json ${facts.runs.join(',')}, history ${history}`;
}

async function withRun(options: CiRunOptions, check: (run: CiRun) => Promise<string>) {
  const run = await runCi(options);
  try {
    expect(run.standIn.model.quickActions, 'quick actions').to.deep.equal([]);
    return await check(run);
  } finally {
    await run.close();
  }
}

export function llmCell(phase: LlmPhase, fault: LlmFault): Promise<string> {
  return withRun({ replies: withFault(phase, fault) }, async (run) => {
    expect(run.error, String(run.error)).to.equal(undefined);
    expect(run.outcome?.state).to.equal('FAILED');
    const facts = await runFacts(run);
    expect(facts.finalState).to.equal('failed');
    expect(facts.runs).to.deep.equal(['failed']);
    if (phase !== 'planning') expect(facts.history).to.include('plan');
    return `✓ ${describeFacts(facts)}`;
  });
}

/** One fault answer, then the right reply: the run completes. */
export function transientLlmCell(fault: LlmFault): Promise<string> {
  const replies = happyReplies();
  replies.splice(1, 0, { ...fault.reply, purpose: 'execution', times: 1 });
  return withRun({ replies }, async (run) => {
    expect(run.outcome?.state, String(run.error)).to.equal('COMPLETE');
    const facts = await runFacts(run);
    expect(facts.finalState).to.equal('complete');
    return `✓ recovered: ${describeFacts(facts)}`;
  });
}

export const GITLAB_RUN_FAULTS = [
  { name: 'GitLab 429 (Retry-After 1)', fault: { status: 429, retryAfter: 1 } },
  { name: 'GitLab 500', fault: { status: 500 } },
  { name: 'GitLab 502/503', fault: { status: 503 } },
  { name: 'GitLab timeout', fault: { hang: true } },
] as const;

/** GitLab faults on every note write of a run: the note still ends in its final state. */
export function gitlabRunCell(fault: (typeof GITLAB_RUN_FAULTS)[number]): Promise<string> {
  return withRun(
    {
      replies: happyReplies(),
      before: ({ standIn }) => {
        standIn.faults.add({ ...fault.fault, method: 'POST', path: /\/notes$/, times: 1 });
        standIn.faults.add({ ...fault.fault, method: 'PUT', path: /\/notes\/\d+$/, times: 3 });
      },
    },
    async (run) => {
      expect(run.outcome?.state, String(run.error)).to.equal('COMPLETE');
      const facts = await runFacts(run);
      expect(facts.finalState).to.equal('complete');
      expect(facts.runs).to.deep.equal(['complete']);
      const hit = run.standIn.requests.entries.filter((e) => e.status === 0 || e.status >= 429);
      expect(hit.length, 'faults hit').to.be.at.least(1);
      return `✓ ${describeFacts(facts)} (${hit.length} faulty answers)`;
    },
  );
}

/** Bytes of state files a happy run writes (measured, so cells can fill the disk part-way). */
let measured: number | undefined;
async function stateBytes(): Promise<number> {
  if (measured !== undefined) return measured;
  const disk = fillDiskAfter(Number.POSITIVE_INFINITY);
  try {
    await withRun({ replies: happyReplies() }, async () => '');
  } finally {
    disk.restore();
  }
  measured = disk.written;
  return measured;
}

/** The disk fills up part-way through a run's state writes: the note still ends in a final state. */
export async function diskRunCell(fraction: number): Promise<string> {
  const budget = Math.floor((await stateBytes()) * fraction);
  const disk = fillDiskAfter(budget);
  try {
    return await withRun({ replies: happyReplies() }, async (run) => {
      expect(disk.refused, 'writes refused').to.be.at.least(1);
      const facts = await runFacts(run);
      expect(facts.finalState).to.be.oneOf(['failed', 'complete']);
      const planning = path.join(run.checkout, '.mr-agent', 'planning_history');
      for (const name of await readdir(planning).catch(() => [] as string[])) {
        const text = await readFile(path.join(planning, name), 'utf8');
        for (const line of text.split('\n').filter(Boolean)) JSON.parse(line); // whole lines only
      }
      return `✓ ${describeFacts(facts)}; ${disk.refused} write(s) refused, none half-written`;
    });
  } finally {
    disk.restore();
  }
}

export const PUSH_CASES = ['conflicting push', 'concurrent push', 'protected branch'] as const;

/** The MR branch moved on (or is protected) while the run worked: the change goes elsewhere, never lost (issue 18). */
export function pushCell(kind: (typeof PUSH_CASES)[number]): Promise<string> {
  const replies = happyReplies();
  return withRun(
    {
      replies,
      deliver: true,
      before: async ({ standIn, s }) => {
        const branch = s.mergeRequest.sourceBranch;
        if (kind === 'protected branch') standIn.model.protectBranch(s.project, branch);
        const files: Record<string, string> =
          kind === 'conflicting push' ? { 'answer.txt': 'forty-two\n' } : { 'HUMAN.md': 'human\n' };
        if (kind !== 'protected branch')
          await standIn.model.commit(s.project, branch, files, {
            message: 'A human pushed meanwhile',
          });
      },
    },
    async (run) => {
      const facts = await runFacts(run);
      expect(facts.finalState).to.equal('complete');
      if (kind === 'concurrent push') {
        expect(run.delivery, String(run.deliveryError)).to.include({
          status: 'pushed',
          rebased: true,
        });
        return `✓ rebased once and pushed; ${describeFacts(facts)}`;
      }
      // issue 18: never lost — on a branch of its own with a merge request into the MR's branch
      const delivery = run.delivery;
      expect(delivery?.status, String(run.deliveryError)).to.equal('pushed-elsewhere');
      if (delivery?.status !== 'pushed-elsewhere') return 'not delivered';
      expect(delivery.reason).to.match(
        kind === 'protected branch' ? /is protected/ : /does not rebase cleanly/,
      );
      expect(delivery.mergeRequest, 'a merge request into the branch').to.not.equal(undefined);
      return `✓ on ${delivery.branch} + MR: "${delivery.reason.slice(0, 60)}…"; ${describeFacts(facts)}`;
    },
  );
}
