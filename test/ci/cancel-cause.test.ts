import { expect } from 'chai';
import { parseMarker } from '../../src/report/marker.ts';
import { renderGitLab, visibleText } from '../support/gitlab-markdown.ts';
import { action, assessment, planWith } from '../support/plans.ts';
import { JobWorld, requestsReached, type JobRun } from './job-world.ts';

const FAREWELL = 'export function farewell(name) {\n  return `Bye, ${name}!`;\n}\n';

/** A run that is still in its first action (the model takes its time) when the signal comes. */
function slowReplies(language: 'en' | 'ja' = 'en') {
  return [
    {
      purpose: 'planning',
      json: planWith(
        [action('task_1', language === 'ja' ? 'farewell() を追加する' : 'Add farewell()')],
        ['farewell() exists'],
      ),
    },
    {
      purpose: 'execution',
      delay_ms: 20_000,
      tool_calls: [
        { name: 'write_file', arguments: { path: 'src/farewell.js', content: FAREWELL } },
      ],
    },
    { purpose: 'execution', content: 'DONE' },
    { purpose: 'completion', json: assessment(true) },
  ];
}

/**
 * Issue 32 "a cancel names the cause": `mr-agent ci` (in-process, over HTTP
 * against the GitLab stand-in and the scripted model) gets SIGTERM while it
 * executes, as the runner sends it for every cancel and for the job timeout.
 * The final note says who or what stopped the run, found out from GitLab
 * (a `/agent stop` comment, the job's status) and the job's timeout.
 */
describe('ci: a cancelled run names who or what stopped it (stand-in, over HTTP)', function () {
  this.timeout(60_000);
  let world: JobWorld;

  beforeEach(async () => {
    world = await JobWorld.start();
  });
  afterEach(async () => {
    await world.close();
  });

  /** What the bridge does for `/agent stop`, and what the cancel button does: the pipeline's cancel. */
  async function cancelPipeline(pipelineId: number): Promise<void> {
    const { s, standIn } = world;
    const response = await fetch(
      `${standIn.url}/api/v4/projects/${s.project.id}/pipelines/${pipelineId}/cancel`,
      { method: 'POST', headers: { 'PRIVATE-TOKEN': s.developerToken.value } },
    );
    expect(response.ok, `cancel: HTTP ${response.status}`).to.equal(true);
  }

  async function cancelledJob(options: {
    before: (pipelineId: number) => Promise<void>;
    variables?: Record<string, string>;
    language?: 'en' | 'ja';
  }): Promise<{ job: JobRun; head: string; change: string; next: string; progress: string }> {
    const task = options.language === 'ja' ? 'farewell 関数を追加してください' : 'add farewell';
    const job = await world.job({
      replies: slowReplies(options.language),
      variables: { ...world.bridgeVariables('run', task), ...options.variables },
      whileRunning: async ({ signal, llm }) => {
        await requestsReached(llm, 2);
        const pipeline = world.standIn.model.pipelines.at(-1)!;
        await options.before(pipeline.id);
        signal('SIGTERM');
      },
    });
    const progress = world.progressNotes().at(-1)!.body;
    expect(parseMarker(progress)?.state, progress).to.equal('cancelled');
    const [head, change, next] = visibleText(renderGitLab(progress));
    return { job, head: head!, change: change!, next: next!, progress };
  }

  it('O4 `/agent stop` said on the merge request (the pipeline cancelled through the API, then SIGTERM): "Stopped during Execution: `/agent stop` by @dev"', async () => {
    const { job, head, change } = await cancelledJob({
      before: async (pipelineId) => {
        world.comment('/agent stop');
        await cancelPipeline(pipelineId);
      },
    });
    expect(job.code).to.equal(143);
    expect(head).to.match(/^🛑 Cancelled/);
    expect(change).to.match(/^Stopped during Execution: \/agent stop by @dev\b/);
    expect(change).to.not.contain('SIGTERM');
  });

  it('O4 a cancel in GitLab (the pipeline cancelled, no `/agent stop`): "the job was cancelled in GitLab"', async () => {
    // a stop said before this pipeline was created is no stop of this run
    const { change } = await cancelledJob({ before: (id) => cancelPipeline(id) });
    expect(change).to.match(/^Stopped during Execution: the job was cancelled in GitLab\b/);
    expect(change).to.not.contain('SIGTERM').and.not.contain('/agent stop');
  });

  it('O4 a `/agent stop` while GitLab still shows the job running is not blamed: SIGTERM without a cancel reads as a cancel in GitLab', async () => {
    const { change } = await cancelledJob({
      before: async () => {
        world.comment('/agent stop');
      },
    });
    expect(change).to.match(/^Stopped during Execution: the job was cancelled in GitLab\b/);
  });

  it('O4 the job timeout (CI_JOB_TIMEOUT since CI_JOB_STARTED_AT has passed): "the job reached its timeout of 1m"', async () => {
    const { change, next } = await cancelledJob({
      before: async () => undefined,
      variables: {
        CI_JOB_TIMEOUT: '60',
        CI_JOB_STARTED_AT: new Date(Date.now() - 61_000).toISOString(),
      },
    });
    expect(change, change).to.match(
      /^Stopped during Execution: the job reached its timeout of 1m\b/,
    );
    // the next step is more time or a smaller change, not the same run again
    expect(next).to.match(/^Next: .*the component's timeout input, now 1m/);
  });

  it('O4 #23 in Japanese: "@dev さんの /agent stop" names the one who stopped it', async () => {
    const { change, progress } = await cancelledJob({
      language: 'ja',
      before: async (pipelineId) => {
        world.comment('/agent stop');
        await cancelPipeline(pipelineId);
      },
    });
    expect(change, progress).to.match(/^実行の途中で停止しました: @dev さんの \/agent stop/);
  });
});
