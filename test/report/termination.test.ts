import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { execa } from 'execa';
import { createSilentLogger } from '../../src/log/logger.ts';
import { parseMarker } from '../../src/report/marker.ts';
import type { SignalSource, TerminationSignal } from '../../src/report/termination.ts';
import { exitCodeForSignal, handleTermination } from '../../src/report/termination.ts';

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures/sigterm-child.ts');

/** A minimal note server: POST /notes creates, PUT /notes/:id edits. */
async function noteServer() {
  const bodies: string[] = [];
  let edits = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      if (req.method === 'PUT') edits += 1;
      bodies.push(body);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ id: '1' }));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    bodies,
    edits: () => edits,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function waitFor(check: () => boolean, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

class FakeSignals implements SignalSource {
  readonly listeners = new Map<string, () => void>();
  on(event: TerminationSignal, listener: () => void) {
    this.listeners.set(event, listener);
  }
  off(event: TerminationSignal) {
    this.listeners.delete(event);
  }
}

describe('report/termination', () => {
  it('M6 a run killed with SIGTERM writes its final state to the note (child process)', async () => {
    const server = await noteServer();
    try {
      const child = execa(process.execPath, ['--import', 'tsx', CHILD, server.url], {
        reject: false,
        stdin: 'ignore',
      });
      let ready = false;
      child.stdout.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('ready')) ready = true;
      });
      await waitFor(() => ready && server.edits() >= 2, 15_000);
      child.kill('SIGTERM');
      const result = await child;

      expect(result.exitCode).to.equal(143);
      const last = server.bodies.at(-1)!;
      expect(parseMarker(last)).to.include({ kind: 'progress', state: 'cancelled', job: '77' });
      expect(last).to.include('### 🛑 Cancelled');
      expect(last).to.include('Stopped during Execution: the process got `SIGTERM`');
    } finally {
      await server.close();
    }
  });

  it('exits with 128 + the signal number after the finaliser', async () => {
    const source = new FakeSignals();
    const exits: number[] = [];
    let finalized = '';
    handleTermination({
      source,
      logger: createSilentLogger(),
      exit: (code) => exits.push(code),
      finalize: async (signal) => {
        finalized = signal;
      },
    });
    source.listeners.get('SIGINT')!();
    await new Promise((resolve) => setImmediate(resolve));
    expect(finalized).to.equal('SIGINT');
    expect(exits).to.deep.equal([130]);
    expect(exitCodeForSignal('SIGTERM')).to.equal(143);
  });

  it('exits after the grace period when the finaliser hangs, and at once on a second signal', async () => {
    const source = new FakeSignals();
    const exits: number[] = [];
    const dispose = handleTermination({
      source,
      logger: createSilentLogger(),
      exit: (code) => exits.push(code),
      graceMs: 20,
      finalize: () => new Promise(() => undefined),
    });
    source.listeners.get('SIGTERM')!();
    source.listeners.get('SIGTERM')!();
    expect(exits).to.deep.equal([143]);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(exits).to.deep.equal([143, 143]);
    dispose();
    expect(source.listeners.size).to.equal(0);
  });
});
