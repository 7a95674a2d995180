import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as z from 'zod';
import { headerValue, messageText, readBody, safeJson, sendJson } from './http.ts';
import {
  completionBody,
  errorBody,
  NAMED_FAULTS,
  promptTokens,
  refuseResponseFormatBody,
  statusFaultBody,
} from './responses.ts';
import {
  describeReply,
  loadScenario,
  replyMatches,
  type Scenario,
  type ScenarioInput,
  type ScriptedReply,
} from './scenario.ts';

/**
 * A scripted OpenAI-compatible server over real HTTP: `POST
 * /v1/chat/completions` answers from a scenario (by `X-Agent-Purpose`, model
 * and the text of the last messages), `GET /v1/models` lists models. It
 * injects faults (429 with Retry-After, 5xx, hangs, malformed bodies,
 * connection resets, refused response formats), logs every request and
 * checks that every scripted reply was used. The `openai` SDK talks to it
 * unmodified; the demo and the tests run on it.
 */

export interface ScriptedServerOptions {
  scenario: Scenario | ScenarioInput | string;
  host?: string;
  /** 0 (default) picks a free port. */
  port?: number;
  /** When set, requests must send `Authorization: Bearer <apiKey>` (else 401). */
  apiKey?: string;
  /** Time for `created` (default Date.now). */
  now?: () => number;
  /** Largest request body accepted (default 8 MB). */
  maxBodyBytes?: number;
}

export interface LoggedRequest {
  sequence: number;
  method: string;
  path: string;
  purpose: string | undefined;
  model: string | undefined;
  messages: readonly Record<string, unknown>[];
  /** The whole request body (model, temperature, reasoning_effort, …). */
  body: Readonly<Record<string, unknown>> | undefined;
  toolNames: readonly string[];
  /** `json_schema:<name>`, `json_object`, `text` or undefined. */
  responseFormat: string | undefined;
  /** Index (0-based) of the scripted reply used. */
  replyIndex: number | undefined;
  outcome: 'reply' | 'fault' | 'unexpected' | 'refused' | 'invalid' | 'unauthorized' | 'other';
  status: number;
}

export interface ScriptedOpenAiServer {
  /** Base URL for the SDK, ending in `/v1`. */
  readonly url: string;
  readonly requests: readonly LoggedRequest[];
  /** Scripted replies with uses left (replies with `times: 0` never count). */
  unusedReplies(): string[];
  /** Throws when a scripted reply was not used or a request had no scripted reply. */
  assertAllUsed(): void;
  close(): Promise<void>;
}

const ChatBody = z.looseObject({
  model: z.string().min(1),
  messages: z.array(z.looseObject({ role: z.string() })).min(1),
  tools: z
    .array(z.looseObject({ function: z.looseObject({ name: z.string() }).optional() }))
    .optional(),
  response_format: z.looseObject({ type: z.string() }).optional(),
  stream: z.boolean().optional(),
  max_completion_tokens: z.number().int().min(1).optional(),
  max_tokens: z.number().int().min(1).optional(),
});
type ChatBody = z.infer<typeof ChatBody>;

export async function startScriptedOpenAiServer(
  options: ScriptedServerOptions,
): Promise<ScriptedOpenAiServer> {
  const scenario = loadScenario(options.scenario);
  const state = new ServerState(scenario, options);
  const server = createServer((req, res) => {
    state.handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, errorBody(String(error), 'server_error'));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve);
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}/v1`,
    requests: state.log,
    unusedReplies: () => state.unused(),
    assertAllUsed: () => state.assertAllUsed(),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

class ServerState {
  readonly log: LoggedRequest[] = [];
  readonly remaining: number[];
  private sequence = 0;

  constructor(
    private readonly scenario: Scenario,
    private readonly options: ScriptedServerOptions,
  ) {
    this.remaining = scenario.replies.map((reply) => reply.times);
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const sequence = ++this.sequence;
    const path = (req.url ?? '/').split('?')[0]!;
    const purpose = headerValue(req.headers['x-agent-purpose']);
    const entry: LoggedRequest = {
      sequence,
      method: req.method ?? 'GET',
      path,
      purpose,
      model: undefined,
      messages: [],
      body: undefined,
      toolNames: [],
      responseFormat: undefined,
      replyIndex: undefined,
      outcome: 'other',
      status: 0,
    };
    this.log.push(entry);
    const reply = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      entry.status = status;
      sendJson(res, status, body, headers);
    };
    if (this.options.apiKey && req.headers.authorization !== `Bearer ${this.options.apiKey}`) {
      entry.outcome = 'unauthorized';
      return reply(401, NAMED_FAULTS.unauthorized.body);
    }
    if (req.method === 'GET' && path === '/v1/models') return reply(200, this.models());
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      return reply(
        404,
        errorBody(`Unknown request URL: ${req.method} ${path}.`, 'invalid_request_error'),
      );
    }
    const limit = this.options.maxBodyBytes ?? 8 * 1024 * 1024;
    const body = await readBody(req, limit);
    if (body === undefined) {
      entry.outcome = 'invalid';
      return reply(
        413,
        errorBody(`Request body larger than ${limit} bytes.`, 'invalid_request_error'),
      );
    }
    const parsed = ChatBody.safeParse(safeJson(body));
    if (!parsed.success) {
      entry.outcome = 'invalid';
      const message = `We could not parse the JSON body of your request: ${parsed.error.issues[0]?.message}`;
      return reply(400, errorBody(message, 'invalid_request_error'));
    }
    this.describe(entry, parsed.data);
    await this.answer(entry, parsed.data, req, res, reply);
  }

  private async answer(
    entry: LoggedRequest,
    body: ChatBody,
    req: IncomingMessage,
    res: ServerResponse,
    reply: (status: number, body: unknown, headers?: Record<string, string>) => void,
  ): Promise<void> {
    if (body.stream) {
      entry.outcome = 'invalid';
      return reply(
        400,
        errorBody('The scripted server does not stream.', 'invalid_request_error', {
          param: 'stream',
        }),
      );
    }
    if (body.response_format?.type === 'json_schema' && !this.scenario.json_schema) {
      entry.outcome = 'refused';
      return reply(400, refuseResponseFormatBody());
    }
    const index = this.pick(entry, body);
    if (index === undefined) {
      entry.outcome = 'unexpected';
      const message = `The scripted server has no reply for purpose ${JSON.stringify(entry.purpose)} and model ${JSON.stringify(body.model)} (request #${entry.sequence}).`;
      return reply(400, errorBody(message, 'invalid_request_error', { code: 'no_scripted_reply' }));
    }
    const scripted = this.scenario.replies[index]!;
    entry.replyIndex = index;
    if (scripted.delay_ms > 0)
      await new Promise((resolve) => setTimeout(resolve, scripted.delay_ms));
    if (scripted.fault !== undefined) {
      entry.outcome = 'fault';
      return this.fault(scripted, req, res, reply);
    }
    entry.outcome = 'reply';
    const created = (this.options.now ?? Date.now)();
    reply(
      200,
      completionBody({
        reply: scripted,
        model: body.model,
        sequence: entry.sequence,
        createdMs: created,
        promptTokens: promptTokens(body),
        maxCompletionTokens: body.max_completion_tokens ?? body.max_tokens,
      }),
    );
  }

  private fault(
    scripted: ScriptedReply,
    req: IncomingMessage,
    res: ServerResponse,
    reply: (status: number, body: unknown, headers?: Record<string, string>) => void,
  ): void {
    const fault = scripted.fault!;
    const headers: Record<string, string> =
      scripted.retry_after !== undefined ? { 'retry-after': String(scripted.retry_after) } : {};
    if (fault === 'hang') return; // never answers; the client times out, close() ends it
    if (fault === 'reset') {
      req.socket.destroy();
      return;
    }
    if (fault === 'malformed') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        '{"id": "chatcmpl-broken", "object": "chat.completion", "choices": [{"index": 0, "mess',
      );
      return;
    }
    if (typeof fault === 'string') {
      const named = NAMED_FAULTS[fault];
      return reply(named.status, named.body, headers);
    }
    reply(fault.status, statusFaultBody(fault), headers);
  }

  private pick(entry: LoggedRequest, body: ChatBody): number | undefined {
    const facts = {
      purpose: entry.purpose,
      model: body.model,
      messageTexts: body.messages.map(messageText),
    };
    for (const [index, scripted] of this.scenario.replies.entries()) {
      if (scripted.times !== 0 && this.remaining[index]! <= 0) continue;
      if (!replyMatches(scripted, facts)) continue;
      if (scripted.times !== 0) this.remaining[index]!--;
      return index;
    }
    return undefined;
  }

  private describe(entry: LoggedRequest, body: ChatBody): void {
    entry.model = body.model;
    entry.messages = body.messages;
    entry.body = body;
    entry.toolNames = (body.tools ?? []).map((tool) => tool.function?.name ?? '?');
    const format = body.response_format;
    if (format) {
      const name = (format['json_schema'] as { name?: unknown } | undefined)?.name;
      entry.responseFormat =
        format.type === 'json_schema' ? `json_schema:${String(name)}` : format.type;
    }
  }

  private models() {
    const created = Math.floor((this.options.now ?? Date.now)() / 1000);
    return {
      object: 'list',
      data: this.scenario.models.map((id) => ({
        id,
        object: 'model',
        created,
        owned_by: 'scripted',
      })),
    };
  }

  unused(): string[] {
    return this.scenario.replies.flatMap((reply, index) =>
      reply.times !== 0 && this.remaining[index]! > 0
        ? [`${describeReply(reply, index)} (${this.remaining[index]} of ${reply.times} uses left)`]
        : [],
    );
  }

  assertAllUsed(): void {
    const problems = this.unused().map((text) => `unused reply ${text}`);
    for (const request of this.log) {
      if (request.outcome === 'unexpected') {
        problems.push(
          `request #${request.sequence} (purpose ${String(request.purpose)}) had no scripted reply`,
        );
      }
    }
    if (problems.length > 0) throw new Error(`scripted OpenAI server: ${problems.join('; ')}`);
  }
}
