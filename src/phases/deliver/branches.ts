/** Which branch delivery pushes to, and which it must never push to. */
import { UsageError } from '../../errors/errors.ts';
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
  const slug = issue.title
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return `${prefix}${issue.iid}${slug ? `-${slug}` : ''}`;
}

/** Refuses the default branch and protected branches with a clear error (H3). */
export async function refuseForbiddenBranch(
  gitlab: GitLabPort,
  project: Project,
  branch: string,
): Promise<void> {
  const hint =
    'mr-agent only pushes to merge request branches it may change: open the merge request from a ' +
    'feature branch, or run the agent on an issue so it creates its own branch.';
  if (branch === project.defaultBranch)
    throw new UsageError(
      `refusing to push to \`${branch}\`: it is the default branch of ${project.pathWithNamespace}`,
      { where: 'delivery', hint },
    );
  const rules = await gitlab.listProtectedBranches(project.id);
  const rule = rules.find((r) => matchesProtected(branch, r));
  if (rule)
    throw new UsageError(
      `refusing to push to \`${branch}\`: it is protected in ${project.pathWithNamespace}` +
        (rule.name === branch ? '' : ` (rule \`${rule.name}\`)`),
      { where: 'delivery', hint },
    );
}
