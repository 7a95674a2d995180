import { execFileSync } from 'node:child_process';
import { Writable } from 'node:stream';
import { setTimeout as tick } from 'node:timers/promises';
import { expect } from 'chai';
import { createHeldLogger, createLazyLogger } from '../../src/log/lazy-logger.ts';
import { createLogger, type LogLevel } from '../../src/log/logger.ts';
import { Redactor } from '../../src/log/redact.ts';

function sink(): { stream: Writable; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  return { stream, lines };
}

/** The same lines through the lazy logger and through `createLogger`, timestamps left out. */
async function bothWrite(level: LogLevel, use: (logger: ReturnType<typeof createLogger>) => void) {
  const redactor = new Redactor();
  redactor.add('s3cr3t-value');
  const lazy = sink();
  const eager = sink();
  const options = { level, format: 'json' as const, traceId: 't-1', redactor };
  use(createLazyLogger({ ...options, stream: lazy.stream }));
  use(createLogger({ ...options, stream: eager.stream }));
  await tick(200);
  const shown = (lines: string[]) =>
    lines.map((line) => {
      const { timestamp: _t, ...rest } = JSON.parse(line) as Record<string, unknown>;
      return rest;
    });
  return { lazy: shown(lazy.lines), eager: shown(eager.lines) };
}

describe('log/lazy-logger: winston loaded only for a line that is written', () => {
  it('L1 writes what createLogger writes, in order, levels filtered alike, secrets masked', async () => {
    const { lazy, eager } = await bothWrite('warn', (logger) => {
      logger.info('dropped', { n: 1 });
      logger.warn('first', { token: 's3cr3t-value' });
      logger.child({ component: 'setup' }).error('second', { exitCode: 2 });
      logger.log('info', 'dropped too');
      logger.log('error', 'third');
      logger.debug('dropped as well');
    });
    expect(lazy).to.deep.equal(eager);
    expect(lazy.map((l) => l['message'])).to.deep.equal(['first', 'second', 'third']);
    expect(lazy[1]).to.include({ component: 'setup', exitCode: 2, trace_id: 't-1' });
    expect(JSON.stringify(lazy)).to.not.include('s3cr3t-value');
  });

  it('L1 a child of a child carries both fields', async () => {
    const { lazy, eager } = await bothWrite('info', (logger) => {
      logger.child({ component: 'run' }).child({ task_id: 'T1' }).info('started');
    });
    expect(lazy).to.deep.equal(eager);
    expect(lazy[0]).to.include({ component: 'run', task_id: 'T1', message: 'started' });
  });

  it('L1 a held logger keeps its lines until released, then writes them in order before release resolves', async () => {
    const out = sink();
    const held = createHeldLogger({
      level: 'info',
      format: 'json',
      traceId: 't-2',
      redactor: new Redactor(),
      stream: out.stream,
    });
    held.logger.info('first');
    held.logger.child({ component: 'start' }).warn('second');
    held.logger.debug('dropped');
    await tick(150);
    expect(out.lines, 'nothing written while held').to.deep.equal([]);
    await held.release();
    const messages = () => out.lines.map((l) => (JSON.parse(l) as { message: string }).message);
    expect(messages()).to.deep.equal(['first', 'second']);
    held.logger.info('third');
    await held.release();
    expect(messages()).to.deep.equal(['first', 'second', 'third']);
  });

  it('L1 a held logger lets its lines through by itself after `atMostMs` (a slow start is seen in the log)', async () => {
    const out = sink();
    const held = createHeldLogger(
      {
        level: 'info',
        format: 'json',
        traceId: 't-3',
        redactor: new Redactor(),
        stream: out.stream,
      },
      { atMostMs: 100 },
    );
    held.logger.warn('GitLab request retried');
    await tick(30);
    expect(out.lines, 'held at first').to.deep.equal([]);
    await tick(400);
    expect(out.lines.map((l) => (JSON.parse(l) as { message: string }).message)).to.deep.equal([
      'GitLab request retried',
    ]);
  });

  it('lines below the level never load winston; the first line at the level does', () => {
    const script = (line: string) =>
      [
        "import { createRequire } from 'node:module';",
        "import { createLazyLogger } from './src/log/lazy-logger.ts';",
        "import { Redactor } from './src/log/redact.ts';",
        "const logger = createLazyLogger({ level: 'error', traceId: 't', redactor: new Redactor(), stream: process.stdout });",
        line,
        'await new Promise((resolve) => setTimeout(resolve, 300));',
        'const cache = createRequire(import.meta.url).cache;',
        "process.stdout.write(`winston loaded: ${Object.keys(cache).some((k) => k.includes('/winston/'))}\\n`);",
      ].join('\n');
    const run = (line: string) =>
      execFileSync(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '-e', script(line)],
        {
          encoding: 'utf8',
        },
      );
    expect(run("logger.info('x'); logger.warn('y'); logger.debug('z');")).to.equal(
      'winston loaded: false\n',
    );
    const written = run("logger.error('it broke');");
    expect(written).to.match(/error {1,2}it broke\n/);
    expect(written).to.match(/winston loaded: true\n$/);
  });
});
