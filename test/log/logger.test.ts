import { expect } from 'chai';
import {
  createLogger,
  createMemoryLogger,
  newTraceId,
  resolveLogFormat,
  textSink,
} from '../../src/log/logger.ts';
import { Redactor } from '../../src/log/redact.ts';
import { createSectionWriter } from '../../src/log/sections.ts';

describe('log/logger', () => {
  it('L1 writes JSON lines carrying trace_id and component', () => {
    const { logger, lines } = createMemoryLogger({
      redactor: new Redactor(),
      format: 'json',
      traceId: 'p1-j2-abc',
    });

    logger.child({ component: 'plan' }).info('plan done', { subtasks: 3 });

    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(line).to.include({
      message: 'plan done',
      trace_id: 'p1-j2-abc',
      component: 'plan',
      subtasks: 3,
      level: 'info',
    });
  });

  it('L1 writes readable text for terminals', () => {
    const { logger, lines } = createMemoryLogger({ redactor: new Redactor(), format: 'text' });

    logger.child({ component: 'run' }).warn('setup command failed', { exitCode: 1 });

    expect(lines[0]).to.match(/warn {2}\[run\] setup command failed \{"exitCode":1\}$/);
  });

  it('L1 includes CI pipeline and job ids in the trace id', () => {
    expect(newTraceId({ pipelineId: '77', jobId: '88' })).to.match(/^p77-j88-[0-9a-f]{8}$/);
  });

  it('B4 writes GitLab collapsible section markers', () => {
    const out: string[] = [];
    const sections = createSectionWriter(
      (t) => out.push(t),
      () => 1_700_000_000_000,
    );

    sections.start('environment setup', 'Environment setup', { collapsed: true });
    sections.end('environment setup');

    expect(out[0]).to.equal(
      '\u001b[0Ksection_start:1700000000:environment_setup[collapsed=true]\r\u001b[0KEnvironment setup\n',
    );
    expect(out[1]).to.equal('\u001b[0Ksection_end:1700000000:environment_setup\r\u001b[0K\n');
  });

  it('L1 log.format auto is JSON lines in CI and text elsewhere; a set format wins', () => {
    expect(resolveLogFormat('auto', { CI: 'true' })).to.equal('json');
    expect(resolveLogFormat('auto', {})).to.equal('text');
    expect(resolveLogFormat('text', { CI: 'true' })).to.equal('text');
    expect(resolveLogFormat('json', {})).to.equal('json');
  });

  it('L1 a logger writing to an injected stderr gets each line as text, redacted', async () => {
    const written: unknown[] = [];
    const redactor = new Redactor();
    redactor.add('s3cret-value');
    const logger = createLogger({
      format: 'json',
      traceId: 't',
      redactor,
      stream: textSink({ write: (text: string) => written.push(text) }),
    });
    logger.info('token s3cret-value');
    await new Promise((resolve) => setImmediate(resolve));
    expect(written).to.have.length(1);
    expect(written[0]).to.be.a('string').and.contain('[MASKED]').and.not.contain('s3cret');
  });
});
