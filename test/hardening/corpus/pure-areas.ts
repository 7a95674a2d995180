import { expect } from 'chai';
import { z } from 'zod';
import { ModelBehaviorError } from '../../../src/errors/errors.ts';
import { extractJson } from '../../../src/llm/extract-json.ts';
import { parseReviewVerdict, ReviewVerdictReply } from '../../../src/llm/review-verdict.ts';
import { parseAgentCommand } from '../../../src/commands/parse.ts';
import { interpretTriggerPayload } from '../../../src/commands/trigger-payload.ts';
import { withLlm } from '../../llm/helpers.ts';
import { noteHook } from '../../trigger/note-hook.ts';
import { BaseCase, expand, parseCase } from './case.ts';
import { expectCleanMessage } from './checks.ts';

/** Corpus areas that call a library function directly (pure input → decision). */

const RULES = { prefix: '/agent', self: { id: 1, username: 'mr-agent-bot' } };

/** TRIGGER_PAYLOAD text (A3): a Note Hook body, changed or replaced. */
const PayloadCase = BaseCase.extend({
  note: z.unknown().default('/agent fix the typo'),
  on: z.enum(['merge_request', 'issue', 'commit']).default('merge_request'),
  set: z.record(z.string(), z.unknown()).default({}),
  raw: z.unknown().optional(),
  reason: z.string().optional(),
  command: z.string().optional(),
  instruction: z.unknown().optional(),
});

function setPath(target: Record<string, unknown>, dotted: string, value: unknown): void {
  const parts = dotted.split('.');
  let node = target;
  for (const part of parts.slice(0, -1)) {
    if (typeof node[part] !== 'object' || node[part] === null) node[part] = {};
    node = node[part] as Record<string, unknown>;
  }
  if (value === '$delete') delete node[parts.at(-1)!];
  else node[parts.at(-1)!] = value;
}

export function runPayloadCase(raw: unknown, file: string): string {
  const c = parseCase(PayloadCase, raw, file);
  let text: string;
  if (c.raw !== undefined) {
    text = String(expand(c.raw));
  } else {
    const hook = noteHook({ note: String(expand(c.note)), on: c.on });
    for (const [dotted, value] of Object.entries(c.set)) setPath(hook, dotted, expand(value));
    text = JSON.stringify(hook);
  }
  const decision = interpretTriggerPayload(text, RULES, { pipelineRef: 'main' });
  if (c.expect === 'ok') {
    expect(decision.kind, JSON.stringify(decision).slice(0, 300)).to.equal('command');
    if (decision.kind !== 'command') return '';
    if (c.command) expect(decision.request.command).to.equal(c.command);
    if (c.instruction !== undefined)
      expect(decision.request.instruction).to.equal(expand(c.instruction));
    return `command ${decision.request.command}`;
  }
  expect(decision.kind, 'decision').to.equal('skip');
  if (decision.kind !== 'skip') return '';
  if (c.reason) expect(decision.reason).to.equal(c.reason);
  expect(decision.message).to.match(/^not a command: /);
  expectCleanMessage(decision.message, c.match, 'the skip message');
  expect(decision.message.length, 'skip message length').to.be.below(2000);
  return `skip ${decision.reason}`;
}

/** Comment texts through the command parser (A1). */
const CommandCase = BaseCase.extend({
  note: z.unknown(),
  prefix: z.string().default('/agent'),
  command: z.string().optional(),
  instruction: z.unknown().optional(),
});

export function runCommandCase(raw: unknown, file: string): string {
  const c = parseCase(CommandCase, raw, file);
  const parsed = parseAgentCommand(String(expand(c.note)), c.prefix);
  if (c.expect === 'ignore') {
    expect(parsed.isCommand, JSON.stringify(parsed).slice(0, 300)).to.equal(false);
    if (!parsed.isCommand) expectCleanMessage(parsed.reason, c.match, 'the reason');
    return 'not a command';
  }
  expect(parsed.isCommand, JSON.stringify(parsed).slice(0, 300)).to.equal(true);
  if (!parsed.isCommand) return '';
  if (c.command) expect(parsed.command).to.equal(c.command);
  if (c.instruction !== undefined) expect(parsed.instruction).to.equal(expand(c.instruction));
  return `${parsed.command}`;
}

/** LLM replies: extraction, verdict parsing, and the json() re-ask path over HTTP. */
const LlmCase = BaseCase.extend({
  kind: z.enum(['extract', 'verdict', 'json']),
  reply: z.unknown().optional(),
  replies: z.array(z.unknown()).default([]),
  top: z.enum(['object', 'array', 'any']).optional(),
  value: z.unknown().optional(),
  result: z.enum(['PASS', 'FAIL', 'PASS_WITH_SUGGESTIONS']).optional(),
  source: z.enum(['json', 'marker', 'default']).optional(),
  reasks: z.number().int().optional(),
});
type LlmCase = z.infer<typeof LlmCase>;

export async function runLlmCase(raw: unknown, file: string): Promise<string> {
  const c = parseCase(LlmCase, raw, file);
  if (c.kind === 'extract') return extractCase(c);
  if (c.kind === 'verdict') return verdictCase(c);
  return jsonCase(c);
}

function extractCase(c: LlmCase): string {
  const found = extractJson(String(expand(c.reply)), c.top ? { top: c.top } : {});
  if (c.expect === 'ok') {
    expect(found.ok, JSON.stringify(found).slice(0, 300)).to.equal(true);
    if (found.ok && c.value !== undefined) expect(found.value).to.deep.equal(expand(c.value));
    return 'found';
  }
  expect(found.ok, 'extraction should find nothing').to.equal(false);
  if (!found.ok) {
    expectCleanMessage(found.reason, c.match, 'the reason');
    expect(found.reason.length, 'reason length').to.be.below(2000);
  }
  return 'nothing';
}

function verdictCase(c: LlmCase): string {
  const verdict = parseReviewVerdict(String(expand(c.reply)));
  expect(verdict.result, 'verdict').to.equal(c.result ?? 'FAIL');
  if (c.source) expect(verdict.source, 'decided by').to.equal(c.source);
  return `${verdict.result} (${verdict.source})`;
}

async function jsonCase(c: LlmCase): Promise<string> {
  const replies = c.replies.map((reply) => ({
    purpose: 'review.execution',
    content: String(expand(reply)),
  }));
  let seen = '';
  await withLlm(
    { json_schema: false, replies },
    async (h) => {
      const request = {
        purpose: 'review.execution' as const,
        role: 'review' as const,
        messages: [{ role: 'user' as const, content: 'Review the change.' }],
        schema: ReviewVerdictReply,
        schemaName: 'review_verdict',
      };
      if (c.expect === 'ok') {
        const reply = await h.llm.json(request);
        if (c.value !== undefined) expect(reply.value).to.deep.equal(expand(c.value));
        if (c.reasks !== undefined) expect(reply.reasks).to.equal(c.reasks);
        seen = `value after ${reply.reasks} re-asks`;
      } else {
        const error = await h.llm.json(request).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error, 'a ModelBehaviorError').to.be.instanceOf(ModelBehaviorError);
        expectCleanMessage((error as Error).message, c.match, 'the error');
        seen = 'ModelBehaviorError';
      }
      const answered = h.server.requests.filter((r) => r.outcome !== 'refused');
      expect(answered, 'one request per scripted reply').to.have.length(replies.length);
    },
    { llm: { max_reasks: Math.max(0, replies.length - 1) } },
  );
  return seen;
}
