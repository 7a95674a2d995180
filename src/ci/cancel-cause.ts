/**
 * Who or what sent the job its termination signal, for the final note.
 * GitLab's runner sends SIGTERM when the job is cancelled — from its page,
 * through the API, or by the webhook bridge answering `/agent stop` — and
 * when the job runs out of its timeout; the signal itself does not say
 * which. So the job asks: the timeout from `CI_JOB_TIMEOUT` and
 * `CI_JOB_STARTED_AT`, then GitLab — a `/agent stop` comment on the merge
 * request or issue since the pipeline started, and the job's status.
 * Anything the job cannot find out in time counts as a cancel in GitLab.
 */
import type { GitLabPort, Noteable, ProjectRef } from '../core/gitlab-port.ts';
import type { CancelCause } from '../core/progress/model.ts';
import type { Logger } from '../log/logger.ts';

/** The runner's clock and the job's differ a little, and the signal comes just after the limit. */
const TIMEOUT_SLACK_MS = 5_000;
/** The longest the job asks GitLab: the run's final note waits for the answer. */
export const CANCEL_LOOKUP_MS = 1_500;
/** A `/agent stop` is among the newest comments: one page of them is read. */
const NEWEST_NOTES = 20;
/** The job statuses of a cancel (`canceling` while the runner still cleans up, GitLab 17+). */
const CANCELLED = new Set(['canceled', 'canceling']);
const USERNAME = /^[\w.-]{1,255}$/;

export interface CancelLookup {
  gitlab: Pick<GitLabPort, 'listNewestNotes' | 'listPipelineJobs'>;
  project: ProjectRef;
  /** The merge request or issue the run answers; none: no comment is looked for. */
  on: Noteable | undefined;
  pipelineId: number;
  jobId: number;
  /** `CI_JOB_TIMEOUT`, when the runner tells it. */
  timeoutSeconds?: number | undefined;
  /** `CI_JOB_STARTED_AT`, epoch milliseconds. */
  startedAt?: number | undefined;
  /** A stop said from this time on (epoch ms) may be the one: when the pipeline was created. */
  since: number;
  /** `trigger.command_prefix`, e.g. `/agent`. */
  prefix: string;
  /** The agent's own user: its notes are no commands. */
  botId: number;
  now: () => number;
  logger: Logger;
  /** Default 1.5 s. */
  lookupMs?: number;
}

function timedOut(l: CancelLookup): boolean {
  if (l.timeoutSeconds === undefined || l.startedAt === undefined) return false;
  return l.now() - l.startedAt >= l.timeoutSeconds * 1000 - TIMEOUT_SLACK_MS;
}

/** `work`'s answer, or undefined when it fails or takes longer than `ms`. */
async function within<T>(ms: number, work: Promise<T>, what: string, logger: Logger) {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
    timer.unref();
  });
  try {
    return await Promise.race([
      work.catch((error: unknown) => {
        logger.warn('cancel lookup failed', { what, error: (error as Error).message });
        return undefined;
      }),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Who said `/agent stop` on the merge request or issue since `since`, newest first. */
async function stopSaidBy(l: CancelLookup): Promise<string | undefined> {
  if (!l.on) return undefined;
  const notes = await l.gitlab.listNewestNotes(l.project, l.on, { page: 1, perPage: NEWEST_NOTES });
  // the command parser (with its Markdown library) loads only once a job is being stopped
  const { parseAgentCommand } = await import('../commands/parse.ts');
  const stop = notes.find((note) => {
    if (note.system || note.author.id === l.botId) return false;
    const at = Date.parse(note.createdAt);
    if (!Number.isFinite(at) || at < l.since) return false;
    const parsed = parseAgentCommand(note.body, l.prefix);
    return parsed.isCommand && parsed.command === 'stop';
  });
  const username = stop?.author.username;
  return username && USERNAME.test(username) ? username : undefined;
}

async function jobStatus(l: CancelLookup): Promise<string | undefined> {
  const jobs = await l.gitlab.listPipelineJobs(l.project, l.pipelineId);
  return jobs.find((job) => job.id === l.jobId)?.status;
}

/**
 * Who or what stopped the job: its timeout, `/agent stop` by its author
 * (while GitLab shows the job cancelled, or cannot tell), else a cancel in
 * GitLab. Never throws; asks GitLab for at most `lookupMs`.
 */
export async function explainCancel(l: CancelLookup): Promise<CancelCause> {
  if (timedOut(l)) return { kind: 'timeout', limitSeconds: l.timeoutSeconds! };
  const ms = l.lookupMs ?? CANCEL_LOOKUP_MS;
  const [stopper, status] = await Promise.all([
    within(ms, stopSaidBy(l), 'notes', l.logger),
    within(ms, jobStatus(l), 'job status', l.logger),
  ]);
  if (stopper && (status === undefined || CANCELLED.has(status)))
    return { kind: 'stop-command', by: stopper };
  return { kind: 'gitlab-cancel' };
}
