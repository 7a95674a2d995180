import type { AgentPipeline, BridgeGitLab } from './bridge-port.ts';
import type { CommandRequest, CommandTarget } from './note-rules.ts';
import { isQuestionThread } from './resume.ts';
import { interpretTriggerPayload, payloadReply } from './trigger-payload.ts';
import { isRunVerb } from './verbs.ts';

/**
 * How the bridge recognises the agent pipelines of one MR or issue:
 * pipelines with source `trigger` on the request's ref (the MR source branch,
 * or the default branch for issues and fork MRs) whose name (`mr-agent !12`,
 * pipelines started with inputs) or variables name the same target (see
 * `nameTarget`, `belongsTo`).
 * The variables check matters because several issues share the default
 * branch. Only the newest page of trigger pipelines is looked at. When GitLab
 * will not show a pipeline's variables (they are visible to Maintainers),
 * the pipeline is counted as the target's: a refused duplicate is better than
 * two agents on one branch.
 *
 * A resumed run started by the zero-infrastructure trigger is a pipeline
 * whose TRIGGER_PAYLOAD is a reply in a thread; such a pipeline counts when
 * the thread is one of the agent's ❓ questions (one thread read each).
 */
export const ACTIVE_STATUSES = new Set([
  'created',
  'waiting_for_resource',
  'preparing',
  'pending',
  'running',
  'scheduled',
]);

/** At most this many recent pipelines have their variables read per look-up. */
export const MAX_PIPELINES_CHECKED = 10;

export function isActive(pipeline: AgentPipeline): boolean {
  return ACTIVE_STATUSES.has(pipeline.status);
}

function sameTarget(
  a: Pick<CommandTarget, 'kind' | 'iid'>,
  b: Pick<CommandTarget, 'kind' | 'iid'>,
): boolean {
  return a.kind === b.kind && a.iid === b.iid;
}

/**
 * Whether a pipeline with these variables is an agent run for `target`: by
 * `MR_AGENT_MR_IID`/`MR_AGENT_ISSUE_IID` (bridge and manual runs), or, for
 * the zero-infrastructure trigger, by a `TRIGGER_PAYLOAD` that holds a run
 * command for the same target (there every comment starts a pipeline).
 */
export function belongsTo(
  variables: Readonly<Record<string, string>>,
  target: CommandTarget,
  prefix?: string,
): boolean {
  if (variables.MR_AGENT_MR_IID || variables.MR_AGENT_ISSUE_IID) {
    const name = target.kind === 'merge_request' ? 'MR_AGENT_MR_IID' : 'MR_AGENT_ISSUE_IID';
    return variables[name] === String(target.iid);
  }
  const payload = variables.TRIGGER_PAYLOAD;
  if (!payload || !prefix) return false;
  const decision = interpretTriggerPayload(payload, { prefix });
  return (
    decision.kind === 'command' &&
    isRunVerb(decision.request.command) &&
    sameTarget(decision.request.target, target)
  );
}

/** A TRIGGER_PAYLOAD reply for `target` in one of the agent's ❓ threads (a resume). */
async function isQuestionReply(
  lookup: Lookup,
  variables: Readonly<Record<string, string>>,
): Promise<boolean> {
  if (!lookup.prefix || !variables.TRIGGER_PAYLOAD) return false;
  const reply = payloadReply(variables.TRIGGER_PAYLOAD, { prefix: lookup.prefix });
  if (!reply || !sameTarget(reply.target, lookup.request.target)) return false;
  const thread = await lookup.gitlab.discussion(
    lookup.request.projectId,
    reply.target,
    reply.discussionId,
  );
  return thread !== undefined && isQuestionThread(thread, lookup.selfId);
}

/**
 * The comment a TRIGGER_PAYLOAD pipeline was started for. Another pipeline
 * for the request's own comment is a second delivery of it, not another run:
 * the 👀 claim decides which of the two goes on.
 */
function payloadNoteId(
  variables: Readonly<Record<string, string>>,
  prefix: string | undefined,
): number | undefined {
  if (!variables.TRIGGER_PAYLOAD || !prefix) return undefined;
  const decision = interpretTriggerPayload(variables.TRIGGER_PAYLOAD, { prefix });
  if (decision.kind === 'command') return decision.request.noteId;
  return payloadReply(variables.TRIGGER_PAYLOAD, { prefix })?.noteId;
}

/**
 * The target a pipeline's name gives (`mr-agent !12`, `mr-agent #5`): the
 * documented `.gitlab-ci.yml` header names pipelines started with inputs so,
 * since GitLab shows no pipeline's inputs (docs/ci-component.md).
 */
export function nameTarget(
  name: string | undefined,
): Pick<CommandTarget, 'kind' | 'iid'> | undefined {
  const match = /^mr-agent ([!#])(\d+)$/.exec(name?.trim() ?? '');
  if (!match) return undefined;
  return { kind: match[1] === '!' ? 'merge_request' : 'issue', iid: Number(match[2]) };
}

/**
 * How one listed pipeline relates to the request's target: not its run, its
 * run, a TRIGGER_PAYLOAD pipeline whose comment (`noteId`) asks for a run on
 * it (every comment starts one there; only some become runs), or one whose
 * variables could not be read.
 */
type Verdict =
  | { kind: 'other' }
  | { kind: 'run' }
  | { kind: 'payload'; noteId: number }
  | { kind: 'unreadable' };

async function pipelineVerdict(lookup: Lookup, pipeline: AgentPipeline): Promise<Verdict> {
  const { gitlab, request } = lookup;
  const named = nameTarget(pipeline.name);
  if (named) return sameTarget(named, request.target) ? { kind: 'run' } : { kind: 'other' };
  try {
    const variables = await gitlab.pipelineVariables(request.projectId, pipeline.id);
    const noteId = payloadNoteId(variables, lookup.prefix);
    if (noteId !== undefined && noteId === request.noteId) return { kind: 'other' };
    const ours =
      belongsTo(variables, request.target, lookup.prefix) ||
      (await isQuestionReply(lookup, variables));
    if (!ours) return { kind: 'other' };
    return noteId === undefined ? { kind: 'run' } : { kind: 'payload', noteId };
  } catch (error) {
    lookup.onUnreadable?.(pipeline, error);
    return { kind: 'unreadable' };
  }
}

interface Lookup {
  gitlab: BridgeGitLab;
  request: Pick<CommandRequest, 'projectId' | 'ref' | 'target'> & { noteId?: number };
  /** Leave this pipeline out (the job's own, when `mr-agent ci` asks). */
  excludePipelineId?: number | undefined;
  /** The command prefix, to read TRIGGER_PAYLOAD pipelines. */
  prefix?: string | undefined;
  /** The agent's own user (whose ❓ questions a reply pipeline may resume). */
  selfId?: number | undefined;
  /** Told when a pipeline's variables cannot be read (it is then counted as the target's). */
  onUnreadable?: (pipeline: AgentPipeline, error: unknown) => void;
  /**
   * TRIGGER_PAYLOAD runs are told by the agent's ▶ on their comment
   * (`RUN_EMOJI`), which jobs deciding under the target's lock give.
   */
  runsMarked?: boolean | undefined;
}

async function agentPipelines(
  lookup: Lookup,
  keep: (pipeline: AgentPipeline) => boolean,
  firstOnly: boolean,
  counts: (pipeline: AgentPipeline, verdict: Verdict) => Promise<boolean> = async (_, v) =>
    v.kind !== 'other',
): Promise<AgentPipeline[]> {
  const { gitlab, request } = lookup;
  const all = await gitlab.listTriggeredPipelines(request.projectId, request.ref);
  const candidates = all
    .filter((p) => p.id !== lookup.excludePipelineId && keep(p))
    .slice(0, MAX_PIPELINES_CHECKED);
  const found: AgentPipeline[] = [];
  for (const pipeline of candidates) {
    if (!(await counts(pipeline, await pipelineVerdict(lookup, pipeline)))) continue;
    found.push(pipeline);
    if (firstOnly) break;
  }
  return found;
}

/** The target's agent pipelines that are still active, newest first. */
export function activeAgentPipelines(lookup: Lookup): Promise<AgentPipeline[]> {
  return agentPipelines(lookup, isActive, false);
}

/**
 * The award a TRIGGER_PAYLOAD job gives its own comment, under the target's
 * lock, once it goes on as the run: from then on its pipeline is the run for
 * every other look-up (its pipeline was active from the start, like that of
 * every comment, including those that never become a run).
 */
export const RUN_EMOJI = 'arrow_forward';

/** Whether the agent's ▶ award is on a TRIGGER_PAYLOAD pipeline's comment. */
async function startedAsRun(lookup: Lookup, noteId: number): Promise<boolean> {
  const { gitlab, request } = lookup;
  const [awards, selfId] = await Promise.all([
    gitlab.listNoteAwardEmoji!(request.projectId, request.target, noteId),
    lookup.selfId ?? gitlab.currentUser().then((u) => u.id),
  ]);
  return awards.some((a) => a.name === RUN_EMOJI && a.user.id === selfId);
}

/**
 * The active agent pipelines that keep a new run from starting. A pipeline
 * started for a run (by the bridge, or by hand with variables) counts. A
 * TRIGGER_PAYLOAD pipeline counts once its job went on as the run (its
 * comment has the agent's ▶, given under the target's lock, so of two jobs
 * deciding together the second sees the first's); one whose job is still
 * deciding, or refused, does not. Without the lock (`runsMarked` unset) or
 * when a pipeline's variables cannot be read, a job counts only pipelines
 * older than its own (`excludePipelineId`): two commands started together
 * would otherwise each find the other active and neither would run, so the
 * older one runs and the newer answers.
 */
export function blockingAgentPipelines(lookup: Lookup): Promise<AgentPipeline[]> {
  const own = lookup.excludePipelineId;
  const olderThanOwn = (p: AgentPipeline) => own === undefined || p.id < own;
  const marked = lookup.runsMarked === true && lookup.gitlab.listNoteAwardEmoji !== undefined;
  // a newer pipeline can be the run only once its job runs: one still waiting costs no read
  const mayBlock = (p: AgentPipeline) =>
    isActive(p) && (olderThanOwn(p) || (marked && p.status === 'running'));
  return agentPipelines(lookup, mayBlock, false, async (pipeline, verdict) => {
    switch (verdict.kind) {
      case 'other':
        return false;
      case 'run':
        return true;
      case 'unreadable':
        return olderThanOwn(pipeline);
      case 'payload':
        return marked ? startedAsRun(lookup, verdict.noteId) : olderThanOwn(pipeline);
    }
  });
}

/** The target's newest agent pipeline, whatever its state. */
export async function lastAgentPipeline(lookup: Lookup): Promise<AgentPipeline | undefined> {
  const [last] = await agentPipelines(lookup, () => true, true);
  return last;
}
