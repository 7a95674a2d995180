// F4 resume on a reply: what telling a reply in a thread apart costs. Top-level
// comments must stay on the cheap path (no thread read); replies add one
// thread look-up, done in the bridge's queue after the 2xx answer.
import { request } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Discussion, Note } from '../src/core/gitlab-port.ts';
import { createSilentLogger } from '../src/log/logger.ts';
import { parseNoteEvent } from '../src/commands/note-event.ts';
import { decideNote } from '../src/commands/note-rules.ts';
import { resolveReply, type ThreadLookup } from '../src/commands/resume.ts';
import { startBridgeServer } from '../src/trigger/server.ts';
import { resolveTriggerPayload } from '../src/commands/trigger-payload.ts';

const SECRET = 'bench-secret-0123456789';
const review = 'Looks good to me; a few nits below.\n'.repeat(80);

function hook(note: string, id: number, thread?: string): string {
  return JSON.stringify({
    object_kind: 'note',
    user: { id: 11, username: 'dev', name: 'Dev' },
    project: { id: 5, default_branch: 'main', path_with_namespace: 'g/p' },
    object_attributes: {
      id,
      note,
      noteable_type: 'MergeRequest',
      author_id: 11,
      action: 'create',
      ...(thread ? { discussion_id: thread, type: 'DiscussionNote' } : { type: null }),
    },
    merge_request: { iid: 1, source_branch: 'feature', source_project_id: 5 },
  });
}

const author = { id: 11, username: 'dev', name: 'Dev', bot: false };
const bot = { id: 99, username: 'mr-agent-bot', name: 'mr-agent', bot: true };
const note = (id: number, by: Note['author'], body: string): Note => ({
  id,
  author: by,
  body,
  system: false,
  createdAt: '',
  updatedAt: '',
});
const paused: Discussion = {
  id: 'd1',
  individualNote: false,
  notes: [
    note(1, bot, '<!-- mr-agent:clarification job=5 task=t state=awaiting_answer -->\n## ❓'),
    ...Array.from({ length: 49 }, (_, i) => note(2 + i, author, `answer ${i}`)),
  ],
};
const lookup: ThreadLookup = async () => paused;
const never: ThreadLookup = async () => {
  throw new Error('a top-level comment must not read a thread');
};

async function perOp(label: string, runs: number, fn: (i: number) => unknown): Promise<void> {
  for (let i = 0; i < runs / 10; i++) await fn(i); // warm-up
  const start = performance.now();
  for (let i = 0; i < runs; i++) await fn(i);
  const us = ((performance.now() - start) * 1000) / runs;
  console.log(`  ${label.padEnd(52)} ${us.toFixed(1)} µs/op`);
}

function post(port: number, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/webhook',
        method: 'POST',
        headers: { 'x-gitlab-token': SECRET, 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const rules = { prefix: '/agent', self: { id: 99 } };
console.log(`resume on a reply (node ${process.version})`);
const topLevel = hook(review, 1);
const reply = hook(review, 50, 'd1');
await perOp('JSON + zod + rules, 3 KB top-level comment', 5_000, () => {
  const parsed = parseNoteEvent(JSON.parse(topLevel));
  if (parsed.ok) decideNote(parsed.event, rules);
});
await perOp('JSON + zod + rules, 3 KB reply in a thread', 5_000, () => {
  const parsed = parseNoteEvent(JSON.parse(reply));
  if (parsed.ok) decideNote(parsed.event, rules);
});
await perOp('resolveTriggerPayload, top-level (no look-up)', 5_000, () =>
  resolveTriggerPayload(topLevel, rules, {}, never),
);
await perOp('resolveTriggerPayload, reply (50-note thread in memory)', 5_000, () =>
  resolveTriggerPayload(reply, rules, {}, lookup),
);
const candidate = {
  projectId: 5,
  noteId: 50,
  discussionId: 'd1',
  target: { kind: 'merge_request' as const, iid: 1, sourceBranch: 'feature', fork: false },
  ref: 'feature',
  user: { id: 11, username: 'dev' },
};
await perOp('resolveReply alone (50-note thread in memory)', 20_000, () =>
  resolveReply(candidate, lookup, 99),
);

let looked = 0;
const bridge = await startBridgeServer(
  {
    port: 0,
    host: '127.0.0.1',
    maxBodyBytes: 1 << 20,
    webhookSecret: SECRET,
    queueLimit: 5000,
    concurrency: 4,
    shutdownTimeoutMs: 5000,
  },
  {
    logger: createSilentLogger(),
    rules,
    handle: async () => ({ kind: 'help' }),
    handleReply: async (r) => {
      looked++;
      await resolveReply(r, async () => ({ ...paused, notes: paused.notes.slice(0, 1) }), 99);
      return { kind: 'not-a-resume', detail: 'bench' };
    },
  },
);
const TOTAL = 2000;
const PARALLEL = 50;
for (const [label, make] of [
  ['top-level comments', (i: number) => hook(review + i, i)],
  ['replies in threads', (i: number) => hook(review + i, 10_000 + i, `d${i}`)],
] as const) {
  const bodies = Array.from({ length: TOTAL }, (_, i) => make(i));
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      while (next < TOTAL) await post(bridge.port, bodies[next++]!);
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  await bridge.idle();
  console.log(
    `  HTTP: ${TOTAL} ${label}, ${PARALLEL} at a time`.padEnd(54),
    `${(TOTAL / seconds).toFixed(0)} /s (threads read so far: ${looked})`,
  );
}
await bridge.close();
