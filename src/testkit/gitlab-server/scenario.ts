/**
 * A ready-made world on the stand-in: a bot with an `api` token, people at
 * each role, a project with a repository, a merge request from a feature
 * branch and an issue. Tests and the demo start from it.
 */
import type { GitLabModel } from './model.ts';
import type { IssueRec, MergeRequestRec, ProjectRec, TokenRec, UserRec } from './records.ts';

export interface Scenario {
  bot: UserRec;
  botToken: TokenRec;
  developer: UserRec;
  developerToken: TokenRec;
  guest: UserRec;
  maintainer: UserRec;
  project: ProjectRec;
  mergeRequest: MergeRequestRec;
  issue: IssueRec;
}

export const SCENARIO_FILES: Record<string, string> = {
  'README.md': '# app\n\nA tiny sample project.\n',
  'src/greet.js': "export function greet(name) {\n  return 'Hello ' + name;\n}\n",
  '.mr-agent.yml': 'planning:\n  max_subtasks: 5\n',
};

export async function seedScenario(
  model: GitLabModel,
  options: { projectPath?: string; files?: Record<string, string> } = {},
): Promise<Scenario> {
  const bot = model.addUser({ username: 'mr-agent-bot', name: 'mr-agent', bot: true });
  const botToken = model.addToken(bot.id, { scopes: ['api'], name: 'mr-agent' });
  const developer = model.addUser({ username: 'dev', name: 'Dana Developer' });
  const developerToken = model.addToken(developer.id, { scopes: ['api'] });
  const guest = model.addUser({ username: 'guest', name: 'Gus Guest' });
  const maintainer = model.addUser({ username: 'maint', name: 'Mia Maintainer' });
  const projectPath = options.projectPath ?? 'acme/app';
  const project = await model.addProject({
    path: projectPath,
    files: options.files ?? SCENARIO_FILES,
  });
  model.addMember(project, bot.id, 40);
  model.addMember(projectPath.split('/')[0]!, developer.id, 30);
  model.addMember(project, guest.id, 10);
  model.addMember(project, maintainer.id, 40);
  model.protectBranch(project, project.defaultBranch);
  await model.commit(
    project,
    'feature/greeting',
    {
      'src/greet.js': 'export function greet(name) {\n  return `Hello, ${name}!`;\n}\n',
    },
    { from: project.defaultBranch, message: 'Friendlier greeting' },
  );
  const mergeRequest = model.createMergeRequest({
    project,
    sourceBranch: 'feature/greeting',
    title: 'Friendlier greeting',
    description: 'Makes the greeting friendlier.',
    labels: ['enhancement'],
    authorId: developer.id,
  });
  const issue = model.createIssue({
    project,
    title: 'Add a farewell function',
    description: 'We need `farewell(name)` next to `greet`.',
    labels: ['feature'],
    authorId: developer.id,
  });
  return {
    bot,
    botToken,
    developer,
    developerToken,
    guest,
    maintainer,
    project,
    mergeRequest,
    issue,
  };
}
