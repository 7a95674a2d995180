import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describeError } from '../errors/catalog.ts';
import type { Logger } from '../log/logger.ts';
import type { DispatchOutcome, ReplyOutcome } from '../commands/dispatch.ts';
import { ByteBudget } from './byte-budget.ts';
import {
  declaredLength,
  headerValue,
  readLimitedBody,
  sendJson,
  tokenMatches,
} from './http-util.ts';
import { parseNoteEvent } from '../commands/note-event.ts';
import {
  decideNote,
  type CommandRequest,
  type NoteOrigin,
  type NoteRules,
  type ReplyCandidate,
} from '../commands/note-rules.ts';
import { WorkQueue } from './work-queue.ts';
import { refusalDeskFor, type RefusalDesk, type Refusal } from './refusals.ts';

/**
 * The webhook bridge's HTTP side: `POST /webhook` and `GET /healthz` on
 * node:http. It authenticates, filters cheaply, answers at once (202 for a
 * queued command, 200 for anything ignored) and leaves the API work to a
 * bounded queue, because GitLab counts slow or non-2xx answers as failures
 * and disables a hook after four of them in a row.
 */
export interface BridgeServerOptions {
  port: number;
  host?: string;
  maxBodyBytes: number;
  webhookSecret: string;
  /** Commands waiting at most; more are dropped (logged) with a 200. */
  queueLimit: number;
  concurrency: number;
  /** How long a graceful shutdown waits for queued commands. */
  shutdownTimeoutMs: number;
}

export interface BridgeServerDeps {
  logger: Logger;
  rules: NoteRules;
  handle(request: CommandRequest): Promise<DispatchOutcome>;
  /**
   * A reply in a thread that may resume a paused run; read off the fast
   * path, in the queue. Without it such replies are ignored like any comment.
   */
  handleReply?(reply: ReplyCandidate): Promise<ReplyOutcome>;
  /**
   * A command said in private (an internal note, a confidential issue): it
   * starts nothing and is answered internally. Without it such
   * commands are ignored.
   */
  handlePrivate?(request: CommandRequest): Promise<DispatchOutcome>;
  /**
   * A command the queue could not take: the 👀 claim and, unless `silent`,
   * a reply saying why. Without it such commands are only logged.
   */
  handleRefusal?(request: CommandRequest, refusal: Refusal): Promise<DispatchOutcome>;
  /** The reply naming how many of an author's commands got the 👀 alone. */
  handleRefusalSummary?(request: CommandRequest, count: number): Promise<void>;
  /**
   * Who may command the agent (./membership.ts). An author known to lack
   * `minAccessLevel` is answered at once and never queued. An author not
   * known yet (no members listing, or one that may be stale for them) is
   * answered 202 at once and waits for the role's answer apart from the
   * queue, so strangers never take a queue place from those who may command.
   */
  admission?: {
    minAccessLevel: number;
    known(projectId: number, userId: number): number | undefined;
    resolve(projectId: number, userId: number): Promise<number>;
  };
}

/** What the queue works on: an accepted command, a reply to look at, or a command said in private. */
type BridgeWork =
  | { kind: 'command'; request: CommandRequest }
  | { kind: 'reply'; reply: ReplyCandidate }
  | { kind: 'private'; request: CommandRequest };

function originOf(work: BridgeWork): NoteOrigin {
  return work.kind === 'reply' ? work.reply : work.request;
}

export interface BridgeCounters {
  accepted: number;
  ignored: number;
  dropped: number;
  /** Commands the queue could not take, answered with a refusal instead. */
  refused: number;
  unauthorized: number;
  tooLarge: number;
  handled: number;
  failed: number;
}

export interface RunningBridge {
  port: number;
  url: string;
  counters(): BridgeCounters & { queued: number; running: number };
  /** Resolves when every accepted command has been handled. */
  idle(): Promise<void>;
  /** Graceful shutdown: stop accepting, finish in-flight work, then resolve. */
  close(): Promise<void>;
}

/** Total body bytes buffered at once, in maximum-size bodies (16 MiB with the 1 MiB default). */
const BODY_BUDGET_BODIES = 16;
/** Commands one author may have waiting at once; more are refused (a person types one at a time). */
const WAITING_PER_AUTHOR = 3;
/**
 * How long an author found without the role is answered from memory, without
 * an API call, when the bridge has no members listing to answer from.
 */
const DENIED_AUTHOR_TTL_MS = 5 * 60_000;
/**
 * The longest a request body may take to arrive. GitLab sends a delivery in
 * one go; a slow body would hold its share of the body budget and make
 * everyone else wait past GitLab's 10 s webhook timeout.
 */
const BODY_TIMEOUT_MS = 3_000;
/**
 * The slowest a body may arrive once it had a moment to start: GitLab sends
 * at network speed, so a body that trickles in is cut off early and gives
 * its share of the budget back.
 */
const MIN_BODY_RATE = { bytesPerSec: 64 * 1024, graceMs: 500 };
/**
 * Bodies up to this size (declared) take their share from a budget of their
 * own: a note hook is a few KB, so big or slow bodies holding the main
 * budget never keep a real delivery waiting.
 */
const SMALL_BODY_BYTES = 64 * 1024;
const SMALL_BODY_BUDGET = 64 * SMALL_BODY_BYTES;

const NOTE_EVENTS = new Set(['Note Hook', 'Confidential Note Hook']);

function authorKey(work: BridgeWork): string {
  const origin = originOf(work);
  return `${origin.projectId}:${origin.user.id}`;
}

function targetKey(work: BridgeWork): string {
  const origin = originOf(work);
  return `${origin.projectId}:${origin.target.kind}:${origin.target.iid}`;
}

const NEW_COUNTERS: BridgeCounters = {
  accepted: 0,
  ignored: 0,
  dropped: 0,
  refused: 0,
  unauthorized: 0,
  tooLarge: 0,
  handled: 0,
  failed: 0,
};

class BridgeServer {
  readonly counters: BridgeCounters = { ...NEW_COUNTERS };
  readonly server: Server;
  private readonly queue: WorkQueue<BridgeWork>;
  private readonly inFlight = new Set<string>();
  /** Authors the access check refused, until when (per project): their comments skip the queue. */
  private readonly deniedAuthors = new Map<string, number>();
  /** Commands whose author's role is being asked for, before they may enter the queue. */
  private readonly awaitingRole = new Set<Promise<void>>();
  /** Bodies buffered at once are limited to this many bytes in total. */
  private readonly budget: ByteBudget;
  /** The same for small bodies (declared up to SMALL_BODY_BYTES), apart from the big ones. */
  private readonly smallBudget = new ByteBudget(SMALL_BODY_BUDGET);
  private stopping = false;
  private readonly refusals: RefusalDesk | undefined;

  constructor(
    private readonly options: BridgeServerOptions,
    private readonly deps: BridgeServerDeps,
  ) {
    this.queue = new WorkQueue<BridgeWork>({
      concurrency: options.concurrency,
      limit: options.queueLimit,
      keyOf: targetKey,
      groupOf: authorKey,
      groupLimit: WAITING_PER_AUTHOR,
      run: (work) => this.handle(work),
      onError: (work, error) => {
        this.counters.failed++;
        deps.logger.error('command failed', {
          ...logFields(work),
          error: describeError(error).message,
        });
      },
    });
    this.refusals = refusalDeskFor(deps, options.queueLimit);
    this.budget = new ByteBudget(BODY_BUDGET_BODIES * options.maxBodyBytes);
    this.server = createServer((req, res) => this.route(req, res));
    this.server.headersTimeout = 10_000;
    this.server.requestTimeout = 15_000;
  }

  snapshot() {
    return { ...this.counters, queued: this.queue.size, running: this.queue.running };
  }

  async idle(): Promise<void> {
    const refusing = () => (this.refusals?.waiting ?? 0) > 0;
    while (
      this.awaitingRole.size > 0 ||
      this.queue.size > 0 ||
      this.queue.running > 0 ||
      refusing()
    ) {
      await Promise.all([...this.awaitingRole]);
      await this.queue.idle();
      await this.refusals?.idle();
    }
  }

  private async handle(work: BridgeWork): Promise<void> {
    const started = Date.now();
    try {
      const outcome = await this.outcomeOf(work);
      this.counters.handled++;
      // with admission the members listing is that memory, and it notices a promotion
      if (outcome.kind === 'forbidden' && !this.deps.admission) {
        this.deniedAuthors.set(authorKey(work), Date.now() + DENIED_AUTHOR_TTL_MS);
      }
      // replies that resume nothing are the common case: kept out of the info log
      const level = outcome.kind === 'not-a-resume' ? 'debug' : 'info';
      this.deps.logger.log(level, 'command handled', {
        outcome: outcome.kind,
        ...('pipeline' in outcome && outcome.pipeline ? { pipelineId: outcome.pipeline.id } : {}),
        ...('detail' in outcome ? { detail: outcome.detail } : {}),
        ...logFields(work),
        durationMs: Date.now() - started,
      });
    } finally {
      const origin = originOf(work);
      this.inFlight.delete(`${origin.projectId}:${origin.noteId}`);
    }
  }

  private outcomeOf(work: BridgeWork): Promise<ReplyOutcome> {
    if (work.kind === 'command') return this.deps.handle(work.request);
    if (work.kind === 'private') return this.deps.handlePrivate!(work.request);
    return this.deps.handleReply!(work.reply);
  }

  private route(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthz' && (req.method === 'GET' || req.method === 'HEAD')) {
      const body = { status: this.stopping ? 'stopping' : 'ok', ...this.snapshot() };
      return sendJson(res, this.stopping ? 503 : 200, body, this.stopping);
    }
    if (path !== '/webhook') {
      return sendJson(res, 404, { error: 'not found; POST /webhook or GET /healthz' });
    }
    if (req.method !== 'POST') return sendJson(res, 405, { error: 'use POST' });
    this.onWebhook(req, res).catch((error: unknown) => {
      this.deps.logger.error('webhook handling failed', { error: describeError(error).message });
      sendJson(res, 200, { status: 'ignored', reason: 'internal-error' }, true);
    });
  }

  private ignore(res: ServerResponse, reason: string, detail?: string): void {
    this.counters.ignored++;
    this.deps.logger.debug('webhook ignored', { reason, detail });
    sendJson(res, 200, { status: 'ignored', reason }, this.stopping);
  }

  private async onWebhook(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { logger } = this.deps;
    if (!tokenMatches(headerValue(req, 'x-gitlab-token'), this.options.webhookSecret)) {
      this.counters.unauthorized++;
      logger.warn('webhook refused: bad X-Gitlab-Token', { remote: req.socket.remoteAddress });
      return sendJson(res, 401, { error: 'missing or invalid X-Gitlab-Token' }, true);
    }
    const limit = this.options.maxBodyBytes;
    const declared = declaredLength(req);
    const small = declared !== undefined && declared <= Math.min(limit, SMALL_BODY_BYTES);
    const release = await (small ? this.smallBudget : this.budget).reserve(
      declared !== undefined && declared <= limit ? declared : limit,
    );
    try {
      const read = await readLimitedBody(req, limit, BODY_TIMEOUT_MS, MIN_BODY_RATE);
      if (read.kind === 'aborted') return;
      if (read.kind === 'timed-out') {
        this.counters.tooLarge++;
        logger.warn('webhook refused: body too slow', { timeoutMs: BODY_TIMEOUT_MS });
        return sendJson(
          res,
          408,
          { error: `body not received within ${BODY_TIMEOUT_MS} ms` },
          true,
        );
      }
      if (read.kind === 'too-large') {
        this.counters.tooLarge++;
        logger.warn('webhook refused: body too large', { limit, declared: read.declared });
        return sendJson(res, 413, { error: `body over ${limit} bytes` }, true);
      }
      this.classify(req, res, read.body);
    } finally {
      release();
    }
  }

  /** Decides what an authenticated body is; answers at once. */
  private classify(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
    const event = headerValue(req, 'x-gitlab-event');
    if (event !== undefined && !NOTE_EVENTS.has(event)) {
      return this.ignore(res, 'not-a-note-event', event);
    }
    let json: unknown;
    try {
      json = JSON.parse(body.toString('utf8'));
    } catch {
      return this.ignore(res, 'not-json');
    }
    const parsed = parseNoteEvent(json);
    if (!parsed.ok) return this.ignore(res, parsed.reason, parsed.detail);
    const decision = decideNote(parsed.event, this.deps.rules, { hookEvent: event });
    if (decision.kind === 'ignore') return this.ignore(res, decision.reason, decision.detail);
    const delivery = headerValue(req, 'x-gitlab-event-uuid');
    if (decision.kind === 'command') {
      return this.accept(res, { kind: 'command', request: decision.request }, delivery);
    }
    if (decision.kind === 'private') {
      if (!this.deps.handlePrivate) return this.ignore(res, 'confidential', decision.detail);
      this.deps.logger.info('command said in private', {
        reason: 'confidential',
        detail: decision.detail,
      });
      return this.accept(res, { kind: 'private', request: decision.request }, delivery);
    }
    if (!this.deps.handleReply) return this.ignore(res, 'not-a-command', 'a reply in a thread');
    this.accept(res, { kind: 'reply', reply: decision.reply }, delivery);
  }

  private accept(res: ServerResponse, work: BridgeWork, delivery?: string): void {
    const origin = originOf(work);
    const noteKey = `${origin.projectId}:${origin.noteId}`;
    if (this.inFlight.has(noteKey)) return this.ignore(res, 'duplicate-delivery');
    const admission = this.deps.admission;
    const knownLevel = admission?.known(origin.projectId, origin.user.id);
    if (admission && knownLevel !== undefined && knownLevel < admission.minAccessLevel) {
      return this.ignore(res, 'not-allowed', 'the author lacks the role (members listing)');
    }
    const deniedUntil = this.deniedAuthors.get(authorKey(work));
    if (deniedUntil !== undefined) {
      if (deniedUntil > Date.now()) {
        return this.ignore(res, 'not-allowed', 'the author lacks the role (checked recently)');
      }
      this.deniedAuthors.delete(authorKey(work));
    }
    if (admission && knownLevel === undefined) {
      if (this.awaitingRole.size >= this.options.queueLimit) {
        this.dropped(work, 'full');
        return sendJson(res, 200, { status: 'dropped', reason: 'busy' }, this.stopping);
      }
      this.inFlight.add(noteKey);
      this.answerAccepted(res, work, delivery);
      const waiting: Promise<void> = admission
        .resolve(origin.projectId, origin.user.id)
        .then(
          (level) => {
            if (level >= admission.minAccessLevel) return this.enqueue(work);
            this.deps.logger.debug('command refused: the author lacks the role', logFields(work));
            this.inFlight.delete(noteKey);
          },
          // the queue's own access check meets the failure again and reports it
          () => this.enqueue(work),
        )
        .finally(() => this.awaitingRole.delete(waiting));
      this.awaitingRole.add(waiting);
      return;
    }
    const queued = this.queue.offer(work);
    if (queued !== 'queued') {
      this.dropped(work, queued);
      const reason = queued === 'full' ? 'busy' : 'author-busy';
      return sendJson(res, 200, { status: 'dropped', reason }, this.stopping);
    }
    this.inFlight.add(noteKey);
    this.answerAccepted(res, work, delivery);
  }

  /** Queues a command whose author may command; a drop is logged (the delivery was answered). */
  private enqueue(work: BridgeWork): void {
    const queued = this.queue.offer(work);
    if (queued === 'queued') return;
    const origin = originOf(work);
    this.inFlight.delete(`${origin.projectId}:${origin.noteId}`);
    this.dropped(work, queued);
  }

  /**
   * A command the queue could not take is refused in its thread (see
   * ./refusals.ts); only when even that cannot be done is it just logged.
   */
  private dropped(work: BridgeWork, why: 'full' | 'group-full'): void {
    const fields = {
      ...logFields(work),
      reason: why === 'full' ? 'queue full' : 'author has commands waiting',
      limit: why === 'full' ? this.options.queueLimit : WAITING_PER_AUTHOR,
    };
    if (work.kind === 'command' && this.refusals) {
      const reason =
        why === 'full'
          ? { kind: 'busy' as const, waiting: this.queue.size + this.awaitingRole.size }
          : { kind: 'author-busy' as const, waiting: WAITING_PER_AUTHOR };
      if (this.refusals.refuse(work.request, reason)) {
        this.counters.refused++;
        this.deps.logger.info('command refused', fields);
        return;
      }
    }
    this.counters.dropped++;
    this.deps.logger.warn('command dropped', fields);
  }

  private answerAccepted(res: ServerResponse, work: BridgeWork, delivery?: string): void {
    this.counters.accepted++;
    const level = work.kind === 'reply' ? 'debug' : 'info';
    this.deps.logger.log(level, 'command accepted', { ...logFields(work), delivery });
    const command = work.kind === 'command' ? work.request.command : work.kind;
    sendJson(res, 202, { status: 'accepted', command }, this.stopping);
  }

  async shutdown(): Promise<void> {
    this.stopping = true;
    const { logger } = this.deps;
    logger.info('bridge stopping', this.snapshot());
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<boolean>((resolve) => {
      timer = setTimeout(resolve, this.options.shutdownTimeoutMs, false);
    });
    const finished = Promise.all([closed, this.idle()]).then(() => true);
    const drained = await Promise.race([finished, timedOut]);
    this.refusals?.close();
    clearTimeout(timer);
    this.server.closeAllConnections();
    logger.info('bridge stopped', { ...this.snapshot(), drained });
  }
}

export async function startBridgeServer(
  options: BridgeServerOptions,
  deps: BridgeServerDeps,
): Promise<RunningBridge> {
  const bridge = new BridgeServer(options, deps);
  const { server } = bridge;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: options.port, host: options.host, backlog: 1024 }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  deps.logger.info('bridge listening', { port, maxBodyBytes: options.maxBodyBytes });
  let closing: Promise<void> | undefined;
  const host = !options.host || options.host === '0.0.0.0' ? '127.0.0.1' : options.host;
  return {
    port,
    url: `http://${host}:${port}`,
    counters: () => bridge.snapshot(),
    idle: () => bridge.idle(),
    close: () => (closing ??= bridge.shutdown()),
  };
}

function logFields(work: BridgeWork): Record<string, unknown> {
  const origin = originOf(work);
  return {
    command: work.kind === 'command' ? work.request.command : work.kind,
    projectId: origin.projectId,
    noteId: origin.noteId,
    target: `${origin.target.kind}!${origin.target.iid}`,
    userId: origin.user.id,
  };
}
