import { expect } from 'chai';
import { loadMetaPrompts } from '../../src/agent-runner/prompts.ts';
import { renderPrompt } from '../../src/core/prompts.ts';
import { builtinPromptsDir } from '../../src/llm/prompt-files.ts';
import {
  CompletionAssessmentReply,
  NextActionReply,
  PlanTaskReply,
} from '../../src/agent-runner/protocol.ts';
import { ConfigError } from '../../src/errors/errors.ts';
import path from 'node:path';

describe('agent-runner/prompts and protocol', () => {
  it('J3 the meta prompts are English files in prompts/meta, each call with its {{request}}', async () => {
    const prompts = await loadMetaPrompts();

    expect(builtinPromptsDir()).to.equal(path.resolve('prompts'));
    expect(prompts.system).to.match(/^You are the tech lead/);
    expect(prompts.system).to.contain('exactly one JSON object');
    for (const [name, type] of [
      ['planTask', 'plan_task'],
      ['nextAction', 'next_action'],
      ['completionAssessment', 'completion_assessment'],
    ] as const) {
      expect(prompts[name]).to.contain(`"type": "${type}"`);
      expect(prompts[name]).to.contain('{{request}}');
    }
  });

  it('a placeholder without a value is a ConfigError naming it', () => {
    expect(renderPrompt('a {{request}} b', { request: 'X' })).to.equal('a X b');
    expect(() => renderPrompt('{{task}}', { request: 'X' })).to.throw(
      ConfigError,
      'a prompt uses the unknown placeholder {{task}}',
    );
  });

  it('seed 002 §2.2–2.4 replies are strict: the type field, required fields, no extra keys', () => {
    expect(
      PlanTaskReply.safeParse({ type: 'plan_task', prd_summary: 's', acceptance_criteria: [] })
        .success,
    ).to.equal(false);
    expect(
      NextActionReply.safeParse({
        type: 'next_action',
        decision: { action: 'mark_complete', reason: 'r' },
        extra: 1,
      }).success,
    ).to.equal(false);
    expect(
      NextActionReply.safeParse({
        type: 'next_action',
        decision: { action: 'run_worker', reason: 'r' },
        worker_call: { worker_type: 'codex-cli', mode: 'chat', prompt: 'p' },
      }).success,
    ).to.equal(false);
    expect(
      NextActionReply.safeParse({
        type: 'next_action',
        decision: { action: 'ask_human', reason: 'r' },
      }).success,
    ).to.equal(true);
    expect(
      CompletionAssessmentReply.safeParse({
        type: 'completion_assessment',
        summary: 's',
        details: { passed_criteria: [], remaining_risks: [] },
      }).success,
    ).to.equal(false);
  });
});
