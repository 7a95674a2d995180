import { UsageError } from '../errors/errors.ts';
import type { CiContext } from './context.ts';
import { readHandoff } from './handoff.ts';
import { requestFromTrigger, type CiRequest } from './request.ts';
import { excludeAgentFolders } from './workspace.ts';

export interface CiStepIo {
  env: Readonly<Record<string, string | undefined>>;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

function describeRequest(request: CiRequest): string {
  const target =
    request.target.kind === 'none'
      ? 'the default branch'
      : `${request.target.kind === 'merge_request' ? '!' : '#'}${request.target.iid}`;
  return `${request.command} on ${target} (${request.source})`;
}

async function requestOf(context: CiContext): Promise<CiRequest> {
  const trigger = context.trigger;
  if (context.step === 'run') return (await readHandoff(context.projectDir)).request;
  if (trigger.kind === 'note' || trigger.kind === 'manual') return requestFromTrigger(trigger);
  throw new UsageError('TRIGGER_PAYLOAD requests are not handled by this build yet', {
    where: 'TRIGGER_PAYLOAD',
  });
}

/**
 * The run path of `mr-agent ci` (loaded only when there is work): keeps the
 * agent's folders out of the commit, then carries out the step.
 */
export async function runCiStep(context: CiContext, _io: CiStepIo): Promise<number> {
  const request = await requestOf(context);
  await excludeAgentFolders(context.projectDir);
  throw new UsageError(
    `the agent run is not part of this build yet: the request was understood (${describeRequest(request)}) but nothing was done`,
    {
      where: `mr-agent ci --step ${context.step}`,
      hint: 'this build of mr-agent carries the CI/CD component and the request handling; the run orchestrator lands separately.',
    },
  );
}
