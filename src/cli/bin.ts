#!/usr/bin/env node
import module from 'node:module';
import { nodeVersionProblem } from './node-guard.ts';

// First the Node.js version: on an older Node the rest of the command would
// fail somewhere inside with an internal error. Nothing above this line (nor
// in node-guard.ts) may use syntax or built-ins newer than what it checks for.
const nodeProblem = nodeVersionProblem(process.versions.node, process.execPath);
if (nodeProblem !== undefined) {
  process.stderr.write(nodeProblem + '\n');
  process.exit(2);
}

// zod compiles a parser for each object schema (`new Function`) the first
// time it parses with it: worth it for a schema parsed many thousand times,
// a dozen compilations before the first progress note for a command that
// parses each a few times. This is `z.config({ jitless: true })`, written
// where zod keeps its global configuration so that this entry loads no zod
// (`--version` needs none); it must precede every schema, which reads it when built.
const zodConfig = globalThis as { __zod_globalConfig?: Record<string, unknown> };
zodConfig.__zod_globalConfig = { ...zodConfig.__zod_globalConfig, jitless: true };

// V8's compile cache (Node ≥ 22.1): what is loaded after this line is compiled
// once and reused by later starts. NODE_COMPILE_CACHE names the folder (the
// runner images ship one filled at build time by `mr-agent warm-compile-cache`);
// without it Node keeps one under the system temp folder. This file is the
// bundle's small entry; everything else is in chunks loaded from here on.
module.enableCompileCache?.();
const { main } = await import('./main.ts');

async function readStdin(): Promise<string | undefined> {
  if (process.stdin.isTTY) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

process.on('unhandledRejection', (reason) => {
  process.stderr.write(
    `mr-agent: internal error: ${reason instanceof Error ? reason.message : String(reason)}\n`,
  );
  process.exitCode = 1;
});

// The handlers of the command that is running (the run, the demo, the bridge),
// told of termination signals and of a closed output alike.
const signalHandlers = new Set<(signal: string) => void>();

// A reader that goes away (`mr-agent --help | head -1`): Node ignores SIGPIPE,
// so the next write to the pipe fails with EPIPE instead. Help, the version and
// listings are then done: exit 0, quietly. A streamed command is told as of a
// termination signal (SIGPIPE) and ends with its final state; what it still
// writes to the closed stream is dropped.
let outputClosed = false;
function onOutputError(error: NodeJS.ErrnoException): void {
  if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
  if (outputClosed) return;
  outputClosed = true;
  if (signalHandlers.size === 0) process.exit(0);
  for (const handler of signalHandlers) handler('SIGPIPE');
}
process.stdout.on('error', onOutputError);
process.stderr.on('error', onOutputError);

const code = await main({
  argv: process.argv.slice(2),
  env: process.env,
  cwd: process.cwd(),
  stdout: process.stdout,
  stderr: process.stderr,
  readStdin,
  exit: (code) => process.exit(code),
  // SIGTERM (job cancelled or timed out), SIGINT (Ctrl-C) and SIGHUP (terminal or
  // runner gone) are handled alike: the run ends with its final state, never as a silent success
  onSignal(handler) {
    const signals = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
    const listener = (signal: NodeJS.Signals) => handler(signal);
    for (const signal of signals) process.on(signal, listener);
    signalHandlers.add(handler);
    return () => {
      for (const signal of signals) process.off(signal, listener);
      signalHandlers.delete(handler);
    };
  },
});
// after a closed output the command ends as if killed by SIGPIPE (128 + 13)
process.exitCode = outputClosed ? 141 : code;
