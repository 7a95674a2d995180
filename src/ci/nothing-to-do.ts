import { writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config/options.ts';
import type { CiContext } from './context.ts';

/**
 * Ends a job that has nothing to do (a comment that is not a command, a user
 * without the role, a control verb already answered): says why on stdout and
 * exits 0. The plan job still writes a child pipeline, because its trigger
 * job always starts one.
 */
export async function finishWithNothingToDo(
  context: CiContext,
  ci: Config['ci'],
  reason: string,
  stdout: { write(text: string): unknown },
): Promise<number> {
  stdout.write(`mr-agent: ${reason}\n`);
  if (context.step === 'plan') {
    // loaded here: the child pipeline's module reads the environments' registry, which the
    // job's start (up to its first note) does not need
    const { CHILD_PIPELINE_FILE, renderNothingToDoPipeline } = await import('./child-pipeline.ts');
    const file = path.join(context.projectDir, CHILD_PIPELINE_FILE);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(
      file,
      renderNothingToDoPipeline({
        ci,
        reason,
        origin: { pipelineId: context.pipeline.id, jobId: context.job.id },
        runner: context.runner,
      }),
    );
  }
  return 0;
}
