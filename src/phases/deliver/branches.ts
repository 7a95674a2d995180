/** Which branch delivery pushes to, and which it must never push to. */
import { ExternalServiceError } from '../../errors/errors.ts';
import type { GitLabPort, Issue, Project, ProtectedBranch } from '../../core/gitlab-port.ts';

/** GitLab protected-branch names may hold `*` wildcards (`release/*`). */
export function matchesProtected(branch: string, rule: ProtectedBranch): boolean {
  if (!rule.name.includes('*')) return rule.name === branch;
  const pattern = rule.name
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${pattern}$`).test(branch);
}

/** `mr-agent/12-add-a-farewell-function` */
export function issueBranchName(prefix: string, issue: Pick<Issue, 'iid' | 'title'>): string {
  const slug = branchSlug(issue.title);
  return `${prefix}${issue.iid}${slug ? `-${slug}` : ''}`;
}

/**
 * Why mr-agent will not push to `branch`, or undefined when it may: the
 * default branch, or a protected one (those are the people's to merge into). When the token may not list the
 * protected branches (403), GitLab's own push check decides.
 */
export async function forbiddenReason(
  gitlab: GitLabPort,
  project: Project,
  branch: string,
): Promise<string | undefined> {
  if (branch === project.defaultBranch)
    return `\`${branch}\` is the default branch of ${project.pathWithNamespace}`;
  let rules: ProtectedBranch[];
  try {
    rules = await gitlab.listProtectedBranches(project.id);
  } catch (error) {
    if (error instanceof ExternalServiceError && error.status === 403) return undefined;
    throw error;
  }
  const rule = rules.find((r) => matchesProtected(branch, r));
  if (!rule) return undefined;
  const which = rule.name === branch ? '' : ` (rule \`${rule.name}\`)`;
  return `\`${branch}\` is protected in ${project.pathWithNamespace}${which}`;
}

/** A branch name part from free text: lower case, dashes, at most 40 characters. */
export function branchSlug(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
}
