// The webhook bridge's cheap path: how long the comment rules take per
// delivery, and how many deliveries per second the HTTP server answers when
// almost all are ordinary comments (the common case GitLab sends).
import { request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { createSilentLogger } from '../src/log/logger.ts';
import { parseAgentCommand } from '../src/commands/parse.ts';
import { parseNoteEvent } from '../src/commands/note-event.ts';
import { decideNote } from '../src/commands/note-rules.ts';
import { startBridgeServer } from '../src/trigger/server.ts';

const SECRET = 'bench-secret-0123456789';

function hook(note: string, id: number): string {
  return JSON.stringify({
    object_kind: 'note',
    user: { id: 11, username: 'dev', name: 'Dev' },
    project: { id: 5, default_branch: 'main', path_with_namespace: 'g/p' },
    object_attributes: { id, note, noteable_type: 'MergeRequest', author_id: 11, action: 'create' },
    merge_request: { iid: 1, source_branch: 'feature', source_project_id: 5 },
  });
}

function perOp(label: string, runs: number, fn: (i: number) => void): void {
  for (let i = 0; i < runs / 10; i++) fn(i); // warm-up
  const start = performance.now();
  for (let i = 0; i < runs; i++) fn(i);
  const us = ((performance.now() - start) * 1000) / runs;
  console.log(`  ${label.padEnd(44)} ${us.toFixed(1)} µs/op`);
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

const review = 'Looks good to me; a few nits below.\n'.repeat(80);
const fenced = 'Try:\n```\n/agent fix the typo\n```\n' + review;
const command = '/agent fix the typo in the README\nand also the docs';

console.log(`bridge (node ${process.version})`);
perOp('parseAgentCommand: 3 KB review comment', 20_000, () => parseAgentCommand(review));
perOp('parseAgentCommand: 3 KB comment, code block', 20_000, () => parseAgentCommand(fenced));
perOp('parseAgentCommand: command', 20_000, () => parseAgentCommand(command));
const body = hook(review, 1);
perOp('JSON + zod + rules per 3 KB delivery', 5_000, () => {
  const parsed = parseNoteEvent(JSON.parse(body));
  if (parsed.ok) decideNote(parsed.event, { prefix: '/agent' });
});

const bridge = await startBridgeServer(
  {
    port: 0,
    host: '127.0.0.1',
    maxBodyBytes: 1 << 20,
    webhookSecret: SECRET,
    queueLimit: 1000,
    concurrency: 4,
    shutdownTimeoutMs: 1000,
  },
  {
    logger: createSilentLogger(),
    rules: { prefix: '/agent' },
    handle: async () => ({ kind: 'help' }),
  },
);
const TOTAL = 2000;
const PARALLEL = 50;
const bodies = Array.from({ length: TOTAL }, (_, i) => hook(review + i, i));
let next = 0;
const start = performance.now();
await Promise.all(
  Array.from({ length: PARALLEL }, async () => {
    while (next < TOTAL) await post(bridge.port, bodies[next++]!);
  }),
);
const seconds = (performance.now() - start) / 1000;
console.log(
  `  HTTP: ${TOTAL} deliveries, ${PARALLEL} at a time            ${(TOTAL / seconds).toFixed(0)} /s`,
);
await bridge.close();
