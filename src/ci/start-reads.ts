import type { GitLabPort } from '../core/gitlab-port.ts';
import { CONFIG_FILE } from '../config/load.ts';
import { usersToCheck, type CiContext } from './context.ts';

/** One read asked ahead: the method, its arguments (as JSON) and the answer on its way. */
interface AskedRead {
  method: string;
  args: string;
  answer: Promise<unknown>;
}

/** The reads the start checks make for a request the job's variables already name. */
function startReadsOf(context: CiContext): [method: string, args: unknown[]][] {
  const project = context.gitlab.projectId;
  const reads: [string, unknown[]][] = [
    ['tokenInfo', []],
    ['currentUser', []],
    ['getProject', [project]],
  ];
  const branch = context.gitlab.defaultBranch;
  if (branch) reads.push(['readFile', [project, CONFIG_FILE, branch]]);
  const trigger = context.trigger;
  if ((trigger.kind === 'note' || trigger.kind === 'manual') && trigger.target.kind !== 'none') {
    const on = { type: trigger.target.kind, iid: trigger.target.iid };
    reads.push(
      trigger.target.kind === 'merge_request'
        ? ['getMergeRequest', [project, trigger.target.iid]]
        : ['getIssue', [project, trigger.target.iid]],
      ['listDiscussions', [project, on]],
    );
  }
  for (const user of usersToCheck(context)) reads.push(['accessLevel', [project, user]]);
  return reads;
}

/**
 * The start checks' reads — the token, the bot user, the project,
 * `.mr-agent.yml` of the default branch, the merge request or issue with its
 * threads, each triggering user's role — asked as soon as the job
 * has its GitLab client, before the run path's modules load, so that GitLab
 * answers while they do. Each answer is handed to the first call that asks
 * the same read with the same arguments; every other call goes to GitLab as
 * usual. Only for a request the job's variables name (the bridge's, "Run
 * pipeline"); a `TRIGGER_PAYLOAD` is decided first, and the run job reads
 * the plan job's hand-off.
 */
export function withStartReadsAsked(gitlab: GitLabPort, context: CiContext): GitLabPort {
  if (context.step === 'run' || context.trigger.kind === 'payload') return gitlab;
  const asked: AskedRead[] = [];
  for (const [method, args] of startReadsOf(context)) {
    const read = (gitlab as unknown as Record<string, unknown>)[method];
    if (typeof read !== 'function') continue;
    const answer = (read as (...a: unknown[]) => Promise<unknown>).apply(gitlab, args);
    // an answer nobody asks for in the end is not an unhandled rejection
    answer.catch(() => undefined);
    asked.push({ method, args: JSON.stringify(args), answer });
  }
  return new Proxy(gitlab, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      const method = String(property);
      if (!asked.some((read) => read.method === method)) return value.bind(target);
      return (...args: unknown[]) => {
        const key = JSON.stringify(args);
        const index = asked.findIndex((read) => read.method === method && read.args === key);
        if (index === -1) return (value as (...a: unknown[]) => unknown).apply(target, args);
        const [read] = asked.splice(index, 1);
        return read!.answer;
      };
    },
  });
}
