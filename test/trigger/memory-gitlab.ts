import type { AwardResult, Discussion, Note } from '../../src/core/gitlab-port.ts';
import type {
  AgentPipeline,
  BridgeGitLab,
  PipelineRequest,
} from '../../src/commands/bridge-port.ts';
import type { CommandTarget } from '../../src/commands/note-rules.ts';

/**
 * An in-memory BridgeGitLab for the dispatch tests (the bridge's HTTP tests use
 * the real GitLab stand-in). It refuses a second identical award like GitLab.
 */
export class MemoryGitLab implements BridgeGitLab {
  readonly members = new Map<number, number>();
  readonly awards = new Set<string>();
  readonly replies: { target: CommandTarget; discussionId: string | undefined; body: string }[] =
    [];
  readonly internalNotes: { target: CommandTarget; body: string }[] = [];
  readonly pipelines: (AgentPipeline & { variables: Record<string, string> })[] = [];
  readonly calls: string[] = [];
  /** Threads by discussion id (for replies that may resume a paused run). */
  readonly discussions = new Map<string, Discussion>();
  failTrigger: Error | undefined;
  /** Makes each trigger call take this long (real time, tens of ms). */
  triggerDelayMs = 0;
  /** Makes pipeline variables unreadable (GitLab shows them to Maintainers only). */
  variablesError: Error | undefined;

  async currentUser() {
    return { id: 99, username: 'mr-agent-bot' };
  }

  async accessLevel(_projectId: number, userId: number): Promise<number> {
    this.calls.push('accessLevel');
    return this.members.get(userId) ?? 0;
  }

  async awardNoteEmoji(
    projectId: number,
    target: CommandTarget,
    noteId: number,
    name: string,
  ): Promise<AwardResult> {
    this.calls.push('award');
    const key = `${projectId}:${target.kind}:${target.iid}:${noteId}:${name}`;
    if (this.awards.has(key)) return { awarded: false };
    this.awards.add(key);
    const user = { id: 99, username: 'mr-agent-bot', name: 'mr-agent', bot: true };
    return { awarded: true, award: { id: this.awards.size, name, user } };
  }

  async reply(
    _projectId: number,
    target: CommandTarget,
    discussionId: string | undefined,
    body: string,
  ) {
    this.replies.push({ target, discussionId, body });
  }

  async internalNote(_projectId: number, target: CommandTarget, body: string) {
    this.internalNotes.push({ target, body });
  }

  async discussion(_projectId: number, _target: CommandTarget, discussionId: string) {
    this.calls.push('discussion');
    return this.discussions.get(discussionId);
  }

  /** The MR's or issue's notes, oldest first (for `/agent status`). */
  readonly notes: Note[] = [];

  async listNotes(): Promise<Note[]> {
    this.calls.push('listNotes');
    return [...this.notes];
  }

  async targetWebUrl(_projectId: number, target: CommandTarget): Promise<string> {
    const kind = target.kind === 'merge_request' ? 'merge_requests' : 'issues';
    return `https://gitlab.example/group/project/-/${kind}/${target.iid}`;
  }

  async triggerPipeline(
    _projectId: number,
    ref: string,
    _token: string,
    request: PipelineRequest,
  ): Promise<AgentPipeline> {
    this.calls.push('trigger');
    if (this.triggerDelayMs) await new Promise((r) => setTimeout(r, this.triggerDelayMs));
    if (this.failTrigger) throw this.failTrigger;
    return this.addPipeline(ref, 'created', { ...request.variables });
  }

  addPipeline(ref: string, status: string, variables: Record<string, string>): AgentPipeline {
    const pipeline = { id: 100 + this.pipelines.length, status, ref, variables };
    this.pipelines.push(pipeline);
    return { id: pipeline.id, status, ref };
  }

  async listTriggeredPipelines(_projectId: number, ref: string): Promise<AgentPipeline[]> {
    this.calls.push('listPipelines');
    return this.pipelines
      .filter((p) => p.ref === ref)
      .map(({ id, status, ref: r }) => ({ id, status, ref: r }))
      .reverse();
  }

  async pipelineVariables(_projectId: number, pipelineId: number) {
    this.calls.push('pipelineVariables');
    if (this.variablesError) throw this.variablesError;
    return this.pipelines.find((p) => p.id === pipelineId)?.variables ?? {};
  }

  async cancelPipeline(_projectId: number, pipelineId: number): Promise<AgentPipeline> {
    this.calls.push('cancel');
    const pipeline = this.pipelines.find((p) => p.id === pipelineId)!;
    pipeline.status = 'canceled';
    return { id: pipeline.id, status: pipeline.status, ref: pipeline.ref };
  }
}
