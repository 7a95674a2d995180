/**
 * Project webhooks of the stand-in: a *Comments* event (`Note Hook`) is
 * POSTed to every hook of the project when somebody comments, with GitLab's
 * headers (`X-Gitlab-Event`, `X-Gitlab-Token`, `X-Gitlab-Event-UUID`). Like
 * GitLab, a hook that fails four times in a row (non-2xx or no answer) is
 * disabled. Used to test the webhook bridge end to end.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { GitLabModel } from './model.ts';
import type { IssueRec, MergeRequestRec, NoteRec, ProjectRec } from './records.ts';
import type { Renderer } from './render.ts';
import { renderPosition, type PositionRec } from './review-state.ts';

/** The line code of a position's line: the path's SHA-1, `_old`, `_new`. */
function lineCodeOf(position: PositionRec): string {
  const sha = createHash('sha1').update(position.newPath).digest('hex');
  return `${sha}_${position.oldLine ?? 0}_${position.newLine ?? 0}`;
}

export interface HookRec {
  id: number;
  projectId: number;
  url: string;
  token: string | undefined;
  consecutiveFailures: number;
  disabled: boolean;
}

export interface HookDelivery {
  hookId: number;
  event: string;
  status: number | undefined;
  error: string | undefined;
}

const DISABLE_AFTER = 4;

export class Hooks {
  readonly hooks: HookRec[] = [];
  readonly deliveries: HookDelivery[] = [];
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly model: GitLabModel,
    private readonly render: Renderer,
    private readonly timeoutMs = 10_000,
  ) {
    model.onNote.push((note) => this.noteCreated(note));
  }

  add(project: ProjectRec, url: string, token?: string): HookRec {
    const hook = {
      id: this.model.nextId(),
      projectId: project.id,
      url,
      token,
      consecutiveFailures: 0,
      disabled: false,
    };
    this.hooks.push(hook);
    return hook;
  }

  /** Resolves once every delivery started so far has finished. */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  private noteCreated(note: NoteRec): void {
    if (note.system) return;
    const project = this.model.projects.get(note.projectId);
    if (!project) return;
    const event = this.isConfidential(note) ? 'Confidential Note Hook' : 'Note Hook';
    for (const hook of this.hooks.filter((h) => h.projectId === project.id && !h.disabled)) {
      // built once the request that made the note is done with it (a diff thread's position is
      // stored right after its first note), as GitLab runs hooks after the note is saved
      const delivery = Promise.resolve()
        .then(() => this.deliver(hook, event, this.notePayload(note, project)))
        .finally(() => this.pending.delete(delivery));
      this.pending.add(delivery);
    }
  }

  private async deliver(hook: HookRec, event: string, payload: unknown): Promise<void> {
    let status: number | undefined;
    let error: string | undefined;
    try {
      const response = await fetch(hook.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-gitlab-event': event,
          'x-gitlab-event-uuid': randomUUID(),
          'x-gitlab-instance': 'http://gitlab.stand-in',
          ...(hook.token ? { 'x-gitlab-token': hook.token } : {}),
        },
        body: JSON.stringify(payload),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      status = response.status;
      await response.body?.cancel();
    } catch (e) {
      error = (e as Error).message;
    }
    const ok = status !== undefined && status >= 200 && status < 300;
    hook.consecutiveFailures = ok ? 0 : hook.consecutiveFailures + 1;
    if (hook.consecutiveFailures >= DISABLE_AFTER) hook.disabled = true;
    this.deliveries.push({ hookId: hook.id, event, status, error });
  }

  /** An internal note, or any comment on a confidential issue: GitLab's confidential note event. */
  private isConfidential(note: NoteRec): boolean {
    if (note.internal) return true;
    return this.model.issues.some(
      (i) => note.noteableType === 'Issue' && i.id === note.noteableId && i.confidential,
    );
  }

  /** The *Comments* event body (the fields GitLab sends that a bridge reads). */
  notePayload(note: NoteRec, project: ProjectRec): Record<string, unknown> {
    const render = this.render;
    const user = render.user(note.authorId);
    const projectJson = render.project(project);
    const mr = this.model.mergeRequests.find(
      (m) => note.noteableType === 'MergeRequest' && m.id === note.noteableId,
    );
    const issue = this.model.issues.find(
      (i) => note.noteableType === 'Issue' && i.id === note.noteableId,
    );
    const kind = mr ? 'merge_requests' : 'issues';
    const position = this.model.review.positions.get(note.discussionId);
    return {
      object_kind: 'note',
      event_type: this.isConfidential(note) ? 'confidential_note' : 'note',
      user: {
        id: user.id,
        name: user.name,
        username: user.username,
        avatar_url: '',
        email: '[REDACTED]',
      },
      project_id: project.id,
      project: {
        id: project.id,
        name: projectJson.name,
        web_url: projectJson.web_url,
        path_with_namespace: project.path,
        default_branch: project.defaultBranch,
        git_http_url: projectJson.http_url_to_repo,
        visibility_level:
          project.visibility === 'public' ? 20 : project.visibility === 'internal' ? 10 : 0,
      },
      object_attributes: {
        id: note.id,
        note: note.body,
        noteable_type: note.noteableType,
        noteable_id: note.noteableId,
        author_id: note.authorId,
        project_id: project.id,
        system: note.system,
        discussion_id: note.discussionId,
        // a diff thread's notes are DiffNotes carrying the thread's position (hook data: the
        // note's attributes, `position` and `line_code` among them)
        type: position
          ? 'DiffNote'
          : this.model.discussions.get(note.discussionId)?.individual === false
            ? 'DiscussionNote'
            : null,
        position: position ? renderPosition(position) : null,
        original_position: position ? renderPosition(position) : null,
        line_code: position ? lineCodeOf(position) : null,
        action: 'create',
        internal: note.internal,
        confidential: note.internal,
        created_at: note.createdAt,
        updated_at: note.updatedAt,
        url: `${projectJson.web_url}/-/${kind}/${note.noteableIid}#note_${note.id}`,
      },
      ...(mr ? { merge_request: this.mergeRequestPart(mr) } : {}),
      ...(issue ? { issue: this.issuePart(issue) } : {}),
    };
  }

  private mergeRequestPart(mr: MergeRequestRec) {
    return {
      id: mr.id,
      iid: mr.iid,
      title: mr.title,
      description: mr.description,
      state: mr.state,
      source_branch: mr.sourceBranch,
      target_branch: mr.targetBranch,
      source_project_id: mr.sourceProjectId,
      target_project_id: mr.projectId,
      author_id: mr.authorId,
      work_in_progress: /^\s*draft:/i.test(mr.title),
    };
  }

  private issuePart(issue: IssueRec) {
    return {
      id: issue.id,
      iid: issue.iid,
      title: issue.title,
      description: issue.description,
      state: issue.state,
      project_id: issue.projectId,
      author_id: issue.authorId,
      confidential: issue.confidential,
    };
  }
}
