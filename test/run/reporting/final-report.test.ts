import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { JsonRequest, LlmPort } from '../../../src/core/llm-port.ts';
import { parseMarker } from '../../../src/report/marker.ts';
import { startReporting } from '../../../src/run/reporting/index.ts';
import { runTask } from '../../../src/run/orchestrator.ts';
import { taskFromText } from '../../../src/task/task-yaml.ts';
import { fillDiskAfter, type DiskFull } from '../../support/disk-full.ts';
import { action, assessment, planWith } from '../../support/plans.ts';
import { RecordingTarget } from '../../support/recording-target.ts';
import { testDeps } from '../../support/run-deps.ts';
import { exec, json, scripted, toolCall } from '../../support/script.ts';
import { makeTempRepo } from '../../support/temp-repo.ts';

describe('run/reporting: the final report (H1, M6, I3)', () => {
  it('a disk that fills up before the Task Note still gets the progress note its final state and the summary note', async () => {
    const repo = await makeTempRepo({});
    let disk: DiskFull | undefined;
    try {
      const inner = scripted([
        json('planning', planWith([action('task_1', 'Write a.txt')])),
        exec.tools(toolCall('write_file', { path: 'a.txt', content: 'a\n' })),
        exec.say('DONE: wrote a.txt'),
        json('completion', assessment(true)),
      ]);
      // the disk fills up while the model judges completion: every later state write fails
      const llm: LlmPort = {
        chat: (request) => inner.chat(request),
        json: <T>(request: JsonRequest<T>) => {
          if (request.purpose === 'completion') disk = fillDiskAfter(0);
          return inner.json(request);
        },
      };
      const deps = await testDeps(llm, { sets: ['planning.reflection.trigger_interval=0'] });
      const task = taskFromText('Write a.txt', { repo: repo.dir, id: 'disk' });
      const target = new RecordingTarget();
      const reporting = await startReporting({
        repoDir: repo.dir,
        config: deps.config,
        taskId: task.id,
        title: task.title,
        runId: 'run-1',
        target,
        redactor: deps.redactor,
        logger: deps.logger,
        clock: deps.clock,
      });
      const outcome = await runTask(
        { ...deps, reporter: reporting.reporter, history: reporting.history },
        { task, repoDir: repo.dir, maxLoops: 2 },
      );
      disk?.restore();

      // the history append during verification may fail too (then the run fails): either way
      // the note shows how it ended, never "running"
      const progress = target.lastBody('1');
      expect(parseMarker(progress)?.state).to.equal(
        outcome.state === 'COMPLETE' ? 'complete' : 'failed',
      );
      expect(progress).to.contain('Some run files could not be written: cannot write');
      expect([...target.notes.values()].some((b) => parseMarker(b)?.kind === 'summary')).to.equal(
        true,
      );
      expect(deps.logLines.join('\n')).to.contain('final report step failed');
      // runs.json could not be updated: the record still says running (the next run marks it interrupted)
      const runs = JSON.parse(await readFile(path.join(repo.dir, '.mr-agent/runs.json'), 'utf8'));
      expect(runs.runs[0].state).to.equal('running');
    } finally {
      disk?.restore();
      await repo.cleanup();
    }
  });
});
