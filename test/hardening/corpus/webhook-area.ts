import { expect } from 'chai';
import { request } from 'node:http';
import { z } from 'zod';
import type {
  IssueRec,
  MergeRequestRec,
  UserRec,
} from '../../../src/testkit/gitlab-server/index.ts';
import { MAX_TASK_CHARS } from '../../../src/commands/variables.ts';
import { startBridgeWorld, type BridgeWorld } from '../../trigger/bridge-world.ts';
import { SECRET } from '../../trigger/http-client.ts';
import { BaseCase, expand, parseCase } from './case.ts';
import { expectCleanMessage, hasStackTrace } from './checks.ts';

/**
 * Webhook bodies through the real bridge (`startBridge`, gitbeaker adapter)
 * over HTTP against the GitLab stand-in. A case starts from a real comment on
 * the stand-in's merge request or issue and its GitLab-shaped Note Hook body,
 * then changes it (`set`/`unset` dotted paths) or replaces it (`raw`, `hex`).
 */
const WebhookCase = BaseCase.extend({
  note: z.unknown().default('/agent fix the typo'),
  on: z.enum(['merge_request', 'issue']).default('merge_request'),
  author: z.enum(['developer', 'guest', 'maintainer', 'bot', 'outsider']).default('developer'),
  set: z.record(z.string(), z.unknown()).default({}),
  unset: z.array(z.string()).default([]),
  raw: z.unknown().optional(),
  /** The body as hex bytes (invalid UTF-8). */
  hex: z.string().optional(),
  /** Header changes; null removes a header. */
  headers: z.record(z.string(), z.unknown()).default({}),
  method: z.string().default('POST'),
  /** Ids in the body as numeric strings. */
  string_ids: z.boolean().default(false),
  /** Deliveries of the same body at once (replicas, GitLab retries). */
  repeat: z.number().int().min(1).default(1),
  /** The refusal comes from node:http itself, without a JSON body. */
  bodyless: z.boolean().default(false),
  path: z.string().default('/webhook'),
  status: z.number().int().optional(),
  /** The `reason` of an ignored delivery. */
  reason: z.string().optional(),
  /** Whether a pipeline must be triggered (default: only for `ok`). */
  pipeline: z.boolean().optional(),
  /** The exact MR_AGENT_TASK the triggered pipeline must carry (CRLF read as LF). */
  task: z.unknown().optional(),
  /** MR_AGENT_TASK must be cut to its limit with the truncation note. */
  task_cut: z.boolean().default(false),
  /** Whether the note gets the 👀 claim (default: when a pipeline starts). */
  award: z.boolean().optional(),
});
type WebhookCase = z.infer<typeof WebhookCase>;

function setPath(target: Record<string, unknown>, dotted: string, value: unknown): void {
  const parts = dotted.split('.');
  let node = target;
  for (const part of parts.slice(0, -1)) {
    if (typeof node[part] !== 'object' || node[part] === null) node[part] = {};
    node = node[part] as Record<string, unknown>;
  }
  node[parts.at(-1)!] = value;
}

function unsetPath(target: Record<string, unknown>, dotted: string): void {
  const parts = dotted.split('.');
  let node: Record<string, unknown> | undefined = target;
  for (const part of parts.slice(0, -1)) node = node?.[part] as Record<string, unknown> | undefined;
  if (node) delete node[parts.at(-1)!];
}

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

function parseAnswer(text: string): Record<string, unknown> {
  try {
    return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    return { unparsed: text };
  }
}

function send(
  baseUrl: string,
  c: WebhookCase,
  body: Buffer,
  headers: Record<string, string>,
): Promise<Answer> {
  const url = new URL(`${baseUrl}${c.path}`);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: c.method,
        headers,
        // a fresh connection each time: a refused request may leave a kept-alive socket unusable
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, body: parseAnswer(text) });
        });
      },
    );
    req.on('error', reject);
    req.end(c.method === 'GET' || c.method === 'HEAD' ? undefined : body);
  });
}

function authorOf(w: BridgeWorld, author: WebhookCase['author']): UserRec {
  if (author === 'outsider') {
    return w.standIn.model.addUser({ username: `outsider${w.standIn.model.users.size}` });
  }
  return w.s[author];
}

function headersFor(c: WebhookCase, body: Buffer): Record<string, string> {
  const changed = Object.entries(c.headers).map(([k, v]) => [
    k,
    v === null ? null : String(expand(v)),
  ]);
  const headers: Record<string, string | null> = {
    'content-type': 'application/json',
    'content-length': String(body.length),
    'x-gitlab-event': 'Note Hook',
    'x-gitlab-token': SECRET,
    ...Object.fromEntries(changed),
  };
  return Object.fromEntries(
    Object.entries(headers).filter((e): e is [string, string] => e[1] !== null),
  );
}

export class WebhookArea {
  private world!: BridgeWorld;

  async start(): Promise<void> {
    this.world = await startBridgeWorld({ logLevel: 'debug' });
  }

  async stop(): Promise<void> {
    await this.world?.close();
  }

  async run(raw: unknown, file: string): Promise<string> {
    const c = parseCase(WebhookCase, raw, file);
    const w = this.world;
    const target: MergeRequestRec | IssueRec = c.on === 'issue' ? w.s.issue : w.s.mergeRequest;
    const { note, hook } = w.comment(target, authorOf(w, c.author), String(expand(c.note)));
    for (const [dotted, value] of Object.entries(c.set)) setPath(hook, dotted, expand(value));
    for (const dotted of c.unset) unsetPath(hook, dotted);
    if (c.string_ids) {
      for (const dotted of ['user.id', 'project.id', 'project_id', 'object_attributes.id']) {
        const parts = dotted.split('.');
        const parent = parts.length === 1 ? hook : (hook[parts[0]!] as Record<string, unknown>);
        parent[parts.at(-1)!] = String(parent[parts.at(-1)!]);
      }
    }
    const body =
      c.hex !== undefined
        ? Buffer.from(c.hex.replace(/\s+/g, ''), 'hex')
        : Buffer.from(c.raw === undefined ? JSON.stringify(hook) : String(expand(c.raw)), 'utf8');
    const pipelinesBefore = w.triggerPipelines().length;
    try {
      const answers = await Promise.all(
        Array.from({ length: c.repeat }, () =>
          send(w.bridges[0]!.url, c, body, headersFor(c, body)),
        ),
      );
      const answer = answers.find((a) => a.status === 202) ?? answers[0]!;
      await w.idle();
      this.checkAnswer(c, answer);
      this.checkEffects(c, note.id, w.triggerPipelines().slice(pipelinesBefore));
      await this.expectHealthy();
      return `${answer.status} ${String(answer.body.reason ?? answer.body.status ?? answer.body.error ?? '')}`;
    } finally {
      // a finished run, so the next case is not "already running"
      for (const p of w.triggerPipelines().slice(pipelinesBefore))
        w.standIn.model.setPipelineStatus(p.id, 'success');
    }
  }

  private checkEffects(
    c: WebhookCase,
    noteId: number,
    started: { variables: Record<string, string> }[],
  ): void {
    const wantPipeline = c.pipeline ?? c.expect === 'ok';
    expect(started, 'pipelines triggered').to.have.length(wantPipeline ? 1 : 0);
    if (c.task !== undefined) {
      const task = started[0]?.variables.MR_AGENT_TASK?.replace(/\r\n/g, '\n');
      expect(task, 'MR_AGENT_TASK').to.equal(expand(c.task));
    }
    if (c.task_cut) {
      const task = (started[0]?.variables.MR_AGENT_TASK ?? '').replace(/\r\n/g, '\n');
      expect(task.length, 'MR_AGENT_TASK length').to.be.at.most(MAX_TASK_CHARS);
      expect(task).to.match(/…\(truncated; the full request is in the note\)$/);
    }
    const awards = this.world.standIn.model.awards.filter((a) => a.noteId === noteId);
    expect(awards, '👀 claims on the note').to.have.length((c.award ?? wantPipeline) ? 1 : 0);
  }

  private checkAnswer(c: WebhookCase, answer: Answer): void {
    const defaultStatus = { ok: 202, ignore: 200, error: 400 }[c.expect];
    expect(answer.status, `status (body ${JSON.stringify(answer.body)})`).to.equal(
      c.status ?? defaultStatus,
    );
    if (c.expect === 'error' && c.bodyless) {
      expect(answer.body, 'node:http refusal').to.deep.equal({});
    } else if (c.expect === 'error') {
      expectCleanMessage(String(answer.body.error ?? ''), c.match, 'the error answer');
    } else if (c.expect === 'ignore' && answer.status === 200) {
      expect(answer.body.status).to.be.oneOf(['ignored', 'dropped']);
      if (c.reason) expect(answer.body.reason).to.equal(c.reason);
    } else if (c.expect === 'ok') {
      expect(answer.body.status).to.equal('accepted');
    }
  }

  private async expectHealthy(): Promise<void> {
    const response = await fetch(`${this.world.bridges[0]!.url}/healthz`);
    expect(response.status, 'bridge health after the case').to.equal(200);
    await response.body?.cancel();
  }

  /** After all cases: no quick action ran, no log line carries a stack trace. */
  finalChecks(): { requests: number; logLines: number } {
    expect(
      this.world.standIn.model.quickActions,
      'quick actions run by bridge notes',
    ).to.deep.equal([]);
    const stacks = this.world.logLines.filter((line) =>
      hasStackTrace(
        Object.values(JSON.parse(line) as Record<string, unknown>)
          .map(String)
          .join('\n'),
      ),
    );
    expect(stacks, 'log lines with stack traces').to.deep.equal([]);
    return {
      requests: this.world.standIn.requests.entries.length,
      logLines: this.world.logLines.length,
    };
  }
}
