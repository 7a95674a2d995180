/**
 * The demo's GitLab: the stand-in with a project built from the bundled
 * sample repository (one bare git repository, the remote over file://),
 * people, a pipeline trigger token, and a merge request whose new test
 * fails — the starting point of `mr-agent demo`.
 */
import type { Clock } from '../core/clock.ts';
import {
  startGitLabStandIn,
  type GitLabStandIn,
  type MergeRequestRec,
  type ProjectRec,
  type TokenRec,
  type UserRec,
} from '../testkit/gitlab-server/index.ts';

/** The story the demo tells. */
export const STORY = {
  projectPath: 'demo/tiny-blog',
  sourceBranch: 'feature/slugify',
  /** Files the merge request adds; the default branch holds the rest of the sample repository. */
  mergeRequestFiles: ['src/slugify.js', 'test/slugify.test.js'],
  mergeRequestTitle: 'Add slugify() for article URLs',
  mergeRequestDescription:
    'Articles need readable URLs, so this adds `slugify(title)` with tests.\n\n' +
    'One test still fails: punctuation ends up in the slug.',
  commitMessage: 'Add slugify() with tests',
  comment: '/agent fix the failing test',
  /** The review scene: the first comment, then the reply in the first review thread. */
  reviewComment: '/agent review',
  fixThisReply: '/agent fix this',
} as const;

export interface DemoWorld {
  standIn: GitLabStandIn;
  project: ProjectRec;
  mergeRequest: MergeRequestRec;
  bot: UserRec;
  botToken: TokenRec;
  developer: UserRec;
  developerToken: TokenRec;
  triggerToken: string;
}

function split(files: Record<string, string>, onBranch: readonly string[]) {
  const base: Record<string, string> = {};
  const branch: Record<string, string> = {};
  for (const [name, text] of Object.entries(files)) {
    if (onBranch.includes(name)) branch[name] = text;
    else base[name] = text;
  }
  return { base, branch };
}

/** Starts the stand-in and builds the demo's project and merge request. */
export async function startDemoWorld(options: {
  root: string;
  sampleRepo: Record<string, string>;
  clock?: Clock;
}): Promise<DemoWorld> {
  const standIn = await startGitLabStandIn({
    root: options.root,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  try {
    const model = standIn.model;
    const bot = model.addUser({ username: 'mr-agent-bot', name: 'mr-agent', bot: true });
    const botToken = model.addToken(bot.id, { scopes: ['api'], name: 'mr-agent' });
    const developer = model.addUser({ username: 'dana', name: 'Dana Developer' });
    const developerToken = model.addToken(developer.id, { scopes: ['api'], name: 'dana' });
    const maintainer = model.addUser({ username: 'mia', name: 'Mia Maintainer' });
    const { base, branch } = split(options.sampleRepo, STORY.mergeRequestFiles);
    const project = await model.addProject({ path: STORY.projectPath, files: base });
    model.addMember(project, bot.id, 30);
    model.addMember(project, developer.id, 30);
    model.addMember(project, maintainer.id, 40);
    model.protectBranch(project, project.defaultBranch);
    await model.commit(project, STORY.sourceBranch, branch, {
      from: project.defaultBranch,
      message: STORY.commitMessage,
    });
    const mergeRequest = model.createMergeRequest({
      project,
      sourceBranch: STORY.sourceBranch,
      title: STORY.mergeRequestTitle,
      description: STORY.mergeRequestDescription,
      labels: ['feature'],
      authorId: developer.id,
    });
    const triggerToken = model.addTriggerToken(project, maintainer.id).value;
    return {
      standIn,
      project,
      mergeRequest,
      bot,
      botToken,
      developer,
      developerToken,
      triggerToken,
    };
  } catch (error) {
    await standIn.close();
    throw error;
  }
}
