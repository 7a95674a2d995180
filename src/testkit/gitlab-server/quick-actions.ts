/**
 * GitLab runs quick actions found in note bodies posted through the API
 * (as GitLab's notes API documents) and in the description of an issue or merge request created
 * or edited through it (GitLab docs, user/project/quick_actions.md): a line
 * starting with a known `/command`, outside code blocks and quotes — inside
 * HTML comments too. Titles and commit messages are not read for them. The
 * stand-in records them so tests can prove the agent never triggers one;
 * unknown commands (such as `/agent`) stay plain text.
 */
import type { IssueRec, MergeRequestRec, QuickActionRec } from './records.ts';
const KNOWN = new Set(
  (
    'approve unapprove merge close reopen label unlabel relabel assign unassign reassign ' +
    'assign_reviewer unassign_reviewer reviewer request_review milestone remove_milestone draft ready ' +
    'wip title lock unlock rebase submit_review award react spend estimate remove_estimate due ' +
    'remove_due_date todo done subscribe unsubscribe confidential copy_metadata duplicate move clone ' +
    'target_branch create_merge_request relate unrelate severity weight clear_weight health_status ' +
    'epic iteration promote shrug tableflip cc page blocks blocked_by remove_parent set_parent ' +
    'squash unsquash'
  ).split(' '),
);

export interface QuickAction {
  command: string;
  line: string;
}

/** The quick actions GitLab would execute, and the body left once their lines are removed. */
export function extractQuickActions(body: string): { actions: QuickAction[]; remaining: string } {
  const actions: QuickAction[] = [];
  const kept: string[] = [];
  let fence: string | undefined;
  for (const line of body.split('\n')) {
    const fenceMatch = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fenceMatch) {
      const marker = fenceMatch[1]!;
      if (fence === undefined) fence = marker[0]!.repeat(marker.length);
      else if (marker.startsWith(fence)) fence = undefined;
      kept.push(line);
      continue;
    }
    const command = fence === undefined ? /^\/([a-z_]+)(?:\s|$)/.exec(line)?.[1] : undefined;
    if (command && KNOWN.has(command)) actions.push({ command, line });
    else kept.push(line);
  }
  return { actions, remaining: kept.join('\n').trim() };
}

/**
 * GitLab's quick-action step on a body written to `on` by `userId`: records
 * the commands and returns the body as GitLab keeps it (their lines removed).
 */
export function runQuickActions(
  log: QuickActionRec[],
  on: MergeRequestRec | IssueRec,
  userId: number,
  body: string,
): { actions: QuickAction[]; remaining: string } {
  const { actions, remaining } = extractQuickActions(body);
  for (const action of actions) {
    log.push({
      projectId: on.projectId,
      noteableType: 'sourceBranch' in on ? 'MergeRequest' : 'Issue',
      noteableIid: on.iid,
      userId,
      command: action.command,
      line: action.line,
    });
  }
  return { actions, remaining: actions.length > 0 ? remaining : body };
}
