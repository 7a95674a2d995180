/**
 * The request of a run started from GitLab (SPEC C1, C4): the merge request
 * or issue with its labels, the files a merge request changes, and the
 * discussion — each comment marked as authorised only when its author holds
 * the configured role, so other people's text stays information.
 */
import type { Logger } from '../log/logger.ts';
import type { DiscussionComment, RequestContext, RequestSource } from '../phases/gather/types.ts';
import {
  ACCESS_LEVEL,
  type AccessLevelName,
  type ChangedFile,
  type Discussion,
  type GitLabPort,
  type Noteable,
  type ProjectRef,
} from './port.ts';

export interface GitLabRequestOptions {
  gitlab: GitLabPort;
  project: ProjectRef;
  on: Noteable;
  /** `trigger.min_access_level`: comments of people below it are information only. */
  minAccessLevel: AccessLevelName;
  /** The agent's own user: its notes (progress, summaries) are left out. */
  botUserId: number;
  logger?: Logger;
}

const STATUS_LETTER: Record<ChangedFile['status'], string> = {
  added: 'A',
  deleted: 'D',
  renamed: 'R',
  modified: 'M',
};

/** One line per changed file: `M src/a.js (+3 -1)`. */
export function diffSummary(files: readonly ChangedFile[]): string {
  return files
    .map((f) => {
      const name = f.status === 'renamed' ? `${f.oldPath} → ${f.newPath}` : f.newPath;
      return `${STATUS_LETTER[f.status]} ${name} (+${f.additions} -${f.deletions})`;
    })
    .join('\n');
}

async function discussionComments(
  options: GitLabRequestOptions,
  discussions: readonly Discussion[],
): Promise<DiscussionComment[]> {
  const levels = new Map<number, Promise<number>>();
  const levelOf = (userId: number) => {
    let level = levels.get(userId);
    if (!level) {
      level = options.gitlab.accessLevel(options.project, userId);
      levels.set(userId, level);
    }
    return level;
  };
  const needed = ACCESS_LEVEL[options.minAccessLevel];
  const comments: DiscussionComment[] = [];
  for (const note of discussions.flatMap((d) => d.notes)) {
    if (note.system || note.author.id === options.botUserId) continue;
    const authorized = !note.author.bot && (await levelOf(note.author.id)) >= needed;
    comments.push({
      author: `@${note.author.username}`,
      body: note.body,
      authorized,
      at: note.createdAt,
    });
  }
  return comments;
}

/** Loads the merge request or issue the run works on, through the GitLab port. */
export function gitlabRequestSource(options: GitLabRequestOptions): RequestSource {
  const { gitlab, project, on } = options;
  return {
    async load(): Promise<RequestContext> {
      const discussions = await gitlab.listDiscussions(project, on);
      const discussion = await discussionComments(options, discussions);
      if (on.type === 'merge_request') {
        const mr = await gitlab.getMergeRequest(project, on.iid);
        const changes = await gitlab.listMergeRequestChanges(project, on.iid);
        options.logger?.debug('merge request loaded', { iid: mr.iid, files: changes.length });
        return {
          source: 'merge_request',
          reference: `!${mr.iid}`,
          title: mr.title,
          body: mr.description,
          labels: mr.labels,
          diffSummary: diffSummary(changes),
          discussion,
        };
      }
      const issue = await gitlab.getIssue(project, on.iid);
      return {
        source: 'issue',
        reference: `#${issue.iid}`,
        title: issue.title,
        body: issue.description,
        labels: issue.labels,
        discussion,
      };
    },
  };
}
