import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCiJob } from '../../bench/support/ci-job.ts';
import { bundleCli } from '../../scripts/bundle-cli.mjs';
import { parseMarker } from '../../src/report/marker.ts';
import { SCENARIO_FILES } from '../../src/testkit/gitlab-server/scenario.ts';
import { sourcesIn, type Metafile } from '../support/bundle-sources.ts';
import { action, assessment, planWith } from '../support/plans.ts';

const HOOK = path.resolve(import.meta.dirname, '../support/loaded-modules.mjs');

/**
 * What the run needs only once it works: the model client, the run's stages,
 * phases and tools; and what this job needs not at all before its note: zip
 * support (no earlier run), the comment rules' Markdown parser (no
 * TRIGGER_PAYLOAD), execa (the pipeline runs on the merge request's branch:
 * no command before the note).
 */
const MODEL_HALF = (source: string) =>
  ['openai', 'fflate', 'markdown-it', 'execa', 'diff'].includes(source) ||
  source === 'src/llm/openai-llm.ts' ||
  source === 'src/run/orchestrator.ts' ||
  /^src\/(tools|phases\/(plan|execute|reflect|verify|review|environment))\//.test(source);

const replies = [
  { purpose: 'planning', json: planWith([action('task_1', 'Add farewell()')], ['farewell()']) },
  {
    purpose: 'execution',
    tool_calls: [
      { name: 'write_file', arguments: { path: 'src/farewell.js', content: 'export {};\n' } },
    ],
  },
  { purpose: 'execution', content: 'DONE: added farewell()' },
  { purpose: 'completion', json: assessment(true) },
];

/**
 * Issue #22 "post the progress note as early as the start checks allow": a
 * real `mr-agent ci` job from the bundle, against the GitLab stand-in and the
 * scripted model over real HTTP, with every module load recorded (when it
 * began) beside the stand-in's request log.
 */
describe('cli/first note: the progress note before the model half (issue #22)', function () {
  this.timeout(180_000);
  let dir: string;
  let bin: string;
  let meta: Metafile;

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'mr-agent-first-note-'));
    bin = await bundleCli(path.join(dir, 'dist', 'mr-agent.mjs'), { metafile: true });
    meta = JSON.parse(readFileSync(`${bin}.meta.json`, 'utf8')) as Metafile;
    // the installation's prompts/ beside dist/, as the package ships them
    symlinkSync(path.resolve(import.meta.dirname, '../../prompts'), path.join(dir, 'prompts'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("H1 posts the note before it loads the OpenAI SDK, Node's fetch, the logging library, the run stages, phases, tools or execa, then runs them", async () => {
    const out = path.join(dir, 'loads.json');
    const intlOut = path.join(dir, 'intl.json');
    const functionsOut = path.join(dir, 'functions.json');
    const fetchOut = path.join(dir, 'fetch.json');
    const job = await runCiJob({
      replies,
      task: 'add a farewell function',
      bin,
      nodeArgs: ['--import', HOOK],
      variables: {
        LOADED_MODULES_TIMES_OUT: out,
        INTL_FORMATTERS_OUT: intlOut,
        FUNCTIONS_OUT: functionsOut,
        FETCH_OUT: fetchOut,
      },
    });
    const noteAt = job.noteCreatedAt;
    expect(noteAt, 'the stand-in saw the progress note created').to.be.a('number');
    const loads = JSON.parse(readFileSync(out, 'utf8')) as { url: string; at: number }[];
    const before = sourcesIn(
      meta,
      loads.filter((l) => l.at < noteAt!).map((l) => l.url),
    );
    const after = sourcesIn(
      meta,
      loads.filter((l) => l.at >= noteAt!).map((l) => l.url),
    );

    expect(before, 'loaded before the note').to.include('src/ci/steps.ts');
    expect(before.filter(MODEL_HALF), 'model half loaded before the note').to.deep.equal([]);
    // the first Intl formatter of a process loads ICU's locale data (tens of ms): the note's
    // start time and small counts are written without one
    const formatters = JSON.parse(readFileSync(intlOut, 'utf8')) as { name: string; at: number }[];
    expect(
      formatters.filter((f) => f.at < noteAt!).map((f) => f.name),
      'Intl formatters built before the note',
    ).to.deep.equal([]);
    // zod runs jitless in the command: no parser compiled from a string (new Function) per schema
    const compiled = JSON.parse(readFileSync(functionsOut, 'utf8')) as { at: number }[];
    expect(
      compiled.filter((f) => f.at < noteAt!).length,
      'functions compiled from strings before the note',
    ).to.equal(0);
    // Node's fetch (undici, tens of ms to load) is the model client's; GitLab is asked without it
    const fetchUses = JSON.parse(readFileSync(fetchOut, 'utf8')) as { name: string; at: number }[];
    expect(
      fetchUses.filter((f) => f.at < noteAt!).map((f) => f.name),
      "Node's fetch API used before the note",
    ).to.deep.equal([]);
    // the logging library loads once the note is posted; lines before it wait for it
    expect(before, 'loaded before the note').not.to.include('winston');
    // `/agent <task>`: the note goes out once the request is accepted and configured, before the
    // run is composed (history, isolation of the checkout, the run's records), which adopts it
    const composition = [
      'src/ci/carry-out.ts',
      'src/run/compose.ts',
      'src/run/reporting/index.ts',
      'src/shell/isolation.ts',
      'src/ci/past-history.ts',
    ];
    expect(
      before.filter((source) => composition.includes(source)),
      'the run composed before the note',
    ).to.deep.equal([]);
    expect(after).to.include.members(composition);
    const progress = job.botNotes.filter((body) => body.includes('mr-agent:progress'));
    expect(progress, 'one progress note, taken over by the run').to.have.length(1);
    expect(parseMarker(progress[0]!)?.state, 'the note ends with the run').to.equal('complete');
    // the model half was loaded afterwards and did the work
    expect(after).to.include.members(['openai', 'src/run/orchestrator.ts']);
    expect(job.calls.map((c) => c.purpose)).to.deep.equal([
      'planning',
      'execution',
      'execution',
      'completion',
    ]);
  });

  it("H1 GitLab's version is asked once the note is out (it only adds lines to the run's notes), not among the requests before it", async () => {
    const job = await runCiJob({ replies, task: 'add a farewell function', bin });
    const noteAt = job.noteCreatedAt!;
    expect(noteAt, 'the stand-in saw the progress note created').to.be.a('number');
    const asked = job.timeline.filter((e) => e.what === 'GET /version');
    expect(asked, 'the version asked once').to.have.length(1);
    const noteAtMs = job.timeline.find(
      (e) => e.what === 'POST /projects/:id/merge_requests/:iid/notes',
    )!.atMs;
    expect(asked[0]!.atMs, 'the version asked after the note').to.be.at.least(noteAtMs);
  });

  it('H1 a project without `.mr-agent.yml`: no YAML library before the note', async () => {
    const out = path.join(dir, 'loads-no-config.json');
    const { '.mr-agent.yml': _config, ...files } = SCENARIO_FILES;
    const job = await runCiJob({
      replies,
      files,
      task: 'add a farewell function',
      bin,
      nodeArgs: ['--import', HOOK],
      variables: { LOADED_MODULES_TIMES_OUT: out },
    });
    const noteAt = job.noteCreatedAt;
    expect(noteAt, 'the stand-in saw the progress note created').to.be.a('number');
    const loads = JSON.parse(readFileSync(out, 'utf8')) as { url: string; at: number }[];
    const before = sourcesIn(
      meta,
      loads.filter((l) => l.at < noteAt!).map((l) => l.url),
    );
    expect(before, 'loaded before the note').to.include('src/ci/first-note.ts');
    expect(before, 'loaded before the note').not.to.include('yaml');
  });

  it('a merge request with a discussion: its notes are put in order without a collator before the note (ICU locale data)', async () => {
    const intlOut = path.join(dir, 'intl-discussed.json');
    const job = await runCiJob({
      replies,
      task: 'add a farewell function',
      earlierComments: ['Could someone add a farewell()?', 'Yes, please.', 'Agreed.'],
      bin,
      nodeArgs: ['--import', HOOK],
      variables: { INTL_FORMATTERS_OUT: intlOut },
    });
    const noteAt = job.noteCreatedAt;
    expect(noteAt, 'the stand-in saw the progress note created').to.be.a('number');
    const formatters = JSON.parse(readFileSync(intlOut, 'utf8')) as { name: string; at: number }[];
    expect(
      formatters.filter((f) => f.at < noteAt!).map((f) => f.name),
      'Intl formatters built or locale-sensitive methods called before the note',
    ).to.deep.equal([]);
  });
});
