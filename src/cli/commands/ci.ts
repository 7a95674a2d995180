import { existsSync } from 'node:fs';
import { finishWithNothingToDo } from '../../ci/nothing-to-do.ts';
import { parseCiContext, type CiContext, type CiStep } from '../../ci/context.ts';
import { jobServices, type JobServices } from '../../ci/services.ts';
import type { CommandRequest } from '../../commands/note-rules.ts';
import type { CliIo } from '../io.ts';

export interface CiOptions {
  step: CiStep;
}

/**
 * `mr-agent ci --step all|plan|run`: the one-line script of the component's
 * jobs. Reads the job environment (pure, cheap) and decides a
 * `TRIGGER_PAYLOAD` from the payload alone, so a comment that is not a
 * command ends here at once; only then is the run path loaded.
 */
export async function ciCommand(io: CliIo, options: CiOptions): Promise<number> {
  const parsed = parseCiContext(io.env, options.step);
  // The job's script starts in CI_PROJECT_DIR; a runner that reports a folder
  // that does not exist (gitlab-ci-local's shell executor) is taken at its word
  // about the working directory instead.
  const context = existsSync(parsed.projectDir) ? parsed : { ...parsed, projectDir: io.cwd };
  const jobIo = {
    env: io.env,
    stdout: io.stdout,
    stderr: io.stderr,
    ...(io.onSignal ? { onSignal: io.onSignal } : {}),
    ...(io.exit ? { exit: io.exit } : {}),
  };
  // the job's services (configuration sources, secrets, logging, GitLab client) are built once,
  // here; a bad value among the sources fails the job once the requester can be told
  const services = jobServices(context, jobIo);
  // a request the variables name: its start reads go out now, answered while the run path loads
  if (context.trigger.kind !== 'payload') await services.gitlab().catch(() => undefined);
  try {
    return await decideAndRun(context, services, io);
  } finally {
    await services.flushLogs();
  }
}

/** A TRIGGER_PAYLOAD decided from the payload (a comment that is not a command ends here), then the run path. */
async function decideAndRun(context: CiContext, services: JobServices, io: CliIo): Promise<number> {
  const config = services.config;
  let payload: CommandRequest | undefined;
  if (context.trigger.kind === 'payload' && context.step !== 'run') {
    // the comment rules (a Markdown parser among them) load for a TRIGGER_PAYLOAD only
    const { decideTriggerPayload, jobThreadLookup } = await import('../../ci/payload.ts');
    const decision = await decideTriggerPayload(
      context,
      context.trigger.payload,
      config.base.trigger.command_prefix,
      jobThreadLookup(services.gitlab),
    );
    if (decision.kind === 'skip') {
      return finishWithNothingToDo(context, config.base.ci, decision.message, io.stdout);
    }
    payload = decision.request;
  }
  const { runCiJob } = await import('../../ci/steps.ts');
  return (await runCiJob(services, payload)).exitCode;
}
