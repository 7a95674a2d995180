import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { resultJsonSchema } from '../../src/report/result-file.ts';
import {
  startScriptedOpenAiServer,
  type ScriptedOpenAiServer,
} from '../../src/testkit/openai-server/server.ts';
import { runCli } from '../cli/helpers.ts';
import { action, assessment, planWith, reflection } from '../support/plans.ts';
import { json, exec } from '../support/script.ts';
import { makeTempRepo } from '../support/temp-repo.ts';
import { runScenario } from '../run/scenario.ts';

const SCHEMA_FILE = 'docs/result.schema.json';

function validator() {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  addFormats.default(ajv);
  return ajv.compile(JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as object);
}

function expectValid(value: unknown): void {
  const validate = validator();
  const ok = validate(value);
  expect(ok, JSON.stringify(validate.errors, null, 2)).to.equal(true);
}

describe('seed 002 §16.2 docs/result.schema.json: the documented shape of result.json', function () {
  this.timeout(30_000);
  let server: ScriptedOpenAiServer | undefined;
  let repo: Awaited<ReturnType<typeof makeTempRepo>> | undefined;
  afterEach(async () => {
    await server?.close();
    await repo?.cleanup();
    server = undefined;
    repo = undefined;
  });

  it('seed 002 §16.2 docs/result.schema.json is generated from the RunResultFile schema (run `npm run docs` when this fails)', () => {
    const written = JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as unknown;
    expect(written).to.deep.equal(resultJsonSchema());
  });

  it('seed 002 §16.2 the schema refuses the old shape (status "complete", a plain validation list)', () => {
    const validate = validator();
    const old = {
      schema_version: 1,
      task_id: 't',
      status: 'complete',
      exit_code: 0,
      summary: '',
      started_at: '2024-01-01T00:00:00.000Z',
      finished_at: '2024-01-01T00:00:00.000Z',
      duration_ms: 0,
      validation: [],
      tokens: { prompt: 0, completion: 0, total: 0, by_role: {} },
      cost_usd: null,
    };
    expect(validate(old)).to.equal(false);
  });

  it('seed 002 §16.2 result.json of a complete `mr-agent run` over the OpenAI stand-in validates (succeeded, validation passed)', async () => {
    repo = await makeTempRepo({ 'check.sh': 'grep -q 42 answer.txt\n' });
    server = await startScriptedOpenAiServer({
      apiKey: 'sk-schema-test',
      scenario: {
        replies: [
          {
            purpose: 'planning',
            json: planWith([action('task_1', 'Write the answer')], ['answer.txt has 42']),
          },
          {
            purpose: 'execution',
            tool_calls: [
              { name: 'write_file', arguments: { path: 'answer.txt', content: '42\n' } },
            ],
          },
          { purpose: 'execution', content: 'DONE: wrote answer.txt' },
          { purpose: 'completion', json: assessment(true) },
        ],
      },
    });
    const { code, stderr } = await runCli(
      [
        'run',
        '--task',
        'Write 42 into answer.txt',
        '--repo',
        repo.dir,
        '--set',
        'planning.reflection.trigger_interval=0',
        '--set',
        'execution.test_command=sh check.sh',
      ],
      {
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '/tmp',
          OPENAI_API_KEY: 'sk-schema-test',
          OPENAI_BASE_URL: server.url,
          MR_AGENT_LLM_MODEL: 'scripted-model',
          MR_AGENT_ENVIRONMENT_SETUP: 'false',
          MR_AGENT_REVIEW_ENABLED: 'false',
          REPLANNING_ENABLED: 'false',
          // our own test world: commands run where the test is not root too (issue 19 §3)
          MR_AGENT_ISOLATION: 'accept-risk',
        },
        cwd: repo.dir,
      },
    );
    expect(code, stderr).to.equal(0);
    const written = JSON.parse(
      await readFile(path.join(repo.dir, '.mr-agent/result.json'), 'utf8'),
    ) as Record<string, unknown>;
    expectValid(written);
    expect(written).to.deep.include({
      status: 'succeeded',
      validation: {
        overall: 'passed',
        commands: [
          {
            command: 'sh check.sh',
            exit_code: 0,
            duration_ms: (written.validation as { commands: Array<{ duration_ms: number }> })
              .commands[0]!.duration_ms,
            timed_out: false,
            passed: true,
          },
        ],
      },
    });
  });

  it('seed 002 §16.2 result.json of failed runs (a failing test, needs_human) validates', async () => {
    const looped = await runScenario({
      realReporting: true,
      test: 'false',
      sets: ['planning.reflection.trigger_interval=0'],
      steps: [
        json('planning', planWith([action('task_1', 'Try')])),
        exec.say('DONE: tried'),
        json('completion', assessment(false)),
        json('reflection', reflection('partial')),
      ],
    });
    const first = JSON.parse(
      await readFile(path.join(looped.dir, '.mr-agent/result.json'), 'utf8'),
    ) as { status: string; state: string; validation: { overall: string } };
    expectValid(first);
    expect(first).to.deep.include({ status: 'failed', state: 'failed' });
    expect(first.validation.overall).to.equal('failed');

    const human = await runScenario({
      realReporting: true,
      sets: ['planning.revision.max_revisions=0', 'planning.reflection.trigger_interval=1'],
      steps: [
        json('planning', planWith([action('task_1', 'Try'), action('task_2', 'More')])),
        exec.say('FAILED: could not'),
        json(
          'reflection',
          reflection('failure', { reason: 'other way', actions: [action('task_1', 'Other')] }),
        ),
      ],
    });
    const second = JSON.parse(
      await readFile(path.join(human.dir, '.mr-agent/result.json'), 'utf8'),
    ) as { status: string; state: string; validation: { overall: string } };
    expectValid(second);
    expect(second).to.deep.include({ status: 'failed', state: 'needs_human' });
    expect(second.validation.overall).to.equal('unknown');
  });
});
