import { describeError } from '../errors/catalog.ts';
import type { GitLabUser, Project } from '../gitlab/port.ts';
import type { Logger } from '../log/logger.ts';
import type { Redactor } from '../log/redact.ts';
import { deliver, type DeliveryResult, type DeliveryTarget } from '../phases/deliver/deliver.ts';
import type { NoteMarker } from '../report/marker.ts';
import type { NoteTarget } from '../report/note-target.ts';
import type { ProgressPublisher } from '../report/progress/publisher.ts';
import { addLink, addNotice } from '../report/progress/state.ts';
import type { RunOutcome } from '../run/outcome.ts';
import type { RunReporter } from '../run/ports.ts';
import type { PreparedRun } from './prepare.ts';

/**
 * Delivery in CI (SPEC H3): when the run completes, the change is committed
 * and pushed before the final state is written, so the progress note's final
 * version links the commit (or the draft merge request). A failed delivery
 * is shown in the note and makes the job fail.
 */
export interface CiDelivery {
  reporter: RunReporter;
  /** Set once the run completed and delivery was tried. */
  result(): { ok: true; delivery: DeliveryResult } | { ok: false; message: string } | undefined;
}

/** GitLab's no-reply address of a user: `<id>-<username>@users.noreply.<host>`. */
export function noReplyEmail(user: GitLabUser, webUrl: string): string {
  const host = new URL(webUrl).hostname;
  return `${user.id}-${user.username}@users.noreply.${host}`;
}

async function deliveryTarget(run: PreparedRun): Promise<DeliveryTarget | undefined> {
  const target = run.request.target;
  if (target.kind === 'merge_request' && run.mergeRequest)
    return { kind: 'merge_request', mergeRequest: run.mergeRequest };
  if (target.kind === 'issue')
    return { kind: 'issue', issue: await run.gitlab.getIssue(run.project.id, target.iid) };
  return undefined;
}

function show(publisher: ProgressPublisher, project: Project, delivery: DeliveryResult): void {
  if (delivery.status === 'pushed') {
    const commitUrl = `${project.webUrl}/-/commit/${delivery.commit}`;
    publisher.update((s) => {
      const next = addLink(s, { label: `Commit ${delivery.commit.slice(0, 8)}`, url: commitUrl });
      return delivery.mergeRequest
        ? addLink(next, {
            label: `Merge request !${delivery.mergeRequest.iid}`,
            url: delivery.mergeRequest.webUrl,
          })
        : next;
    });
  } else if (delivery.status === 'no-changes') {
    publisher.update((s) => addNotice(s, 'The run changed no files: nothing was pushed.'));
  } else if (delivery.status === 'patch-posted') {
    publisher.update((s) => addNotice(s, `The change was posted as a patch: ${delivery.reason}.`));
  }
}

export function deliverBeforeFinal(
  inner: RunReporter,
  input: {
    run: PreparedRun;
    publisher: ProgressPublisher;
    notes: NoteTarget;
    token: string;
    marker: Omit<NoteMarker, 'kind'>;
    redactor: Redactor;
    logger: Logger;
  },
): CiDelivery {
  let result: ReturnType<CiDelivery['result']>;
  const { run } = input;
  const final = async (outcome: RunOutcome) => {
    const target = outcome.state === 'COMPLETE' ? await deliveryTarget(run) : undefined;
    if (target) {
      try {
        const delivery = await deliver({
          repoDir: run.context.projectDir,
          gitlab: run.gitlab,
          project: run.project,
          target,
          notes: input.notes,
          token: input.token,
          hostEnv: run.env,
          commit: {
            title: outcome.title || 'Changes by mr-agent',
            body: outcome.summary,
            author: {
              name: run.bot.name || run.bot.username,
              email: noReplyEmail(run.bot, run.project.webUrl),
            },
          },
          branchPrefix: run.config.delivery.branch_prefix,
          push: run.config.delivery.push,
          stateDir: run.config.state.directory,
          marker: input.marker,
          redactor: input.redactor,
          logger: input.logger,
        });
        show(input.publisher, run.project, delivery);
        result = { ok: true, delivery };
      } catch (error) {
        const message = describeError(error).message;
        input.logger.error('delivery failed', { error: message });
        input.publisher.update((s) =>
          addNotice(s, `The change could not be delivered: ${message}`),
        );
        result = { ok: false, message };
      }
    }
    await inner.final(outcome);
  };
  const reporter = new Proxy(inner, {
    get(target, property) {
      if (property === 'final') return final;
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { reporter, result: () => result };
}
