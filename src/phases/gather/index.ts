import { readFile } from 'node:fs/promises';
import { ConfigError } from '../../errors/errors.ts';
import type { RunContext } from '../../core/run-context.ts';
import type { TaskSpec } from '../../task/task-yaml.ts';
import { walk } from '../../tools/fs-walk.ts';
import { resolveInRepo } from '../../tools/sandbox.ts';
import { readGuidance } from './guidance.ts';
import type { Gathered, RequestContext } from '../../core/gathered.ts';

const FILE_LIST_LIMIT = 200;

/** The request of a local run: the task itself. */
export function requestFromTask(task: TaskSpec): RequestContext {
  return {
    source: 'task',
    title: task.title,
    body: task.description,
    labels: [],
    discussion: [],
  };
}

/** The PRD of a Task YAML: inline text, or a file inside the repository. */
async function readPrd(ctx: RunContext): Promise<string | undefined> {
  const prd = ctx.task.prd;
  if (prd.text !== undefined) return prd.text === ctx.task.description ? undefined : prd.text;
  if (prd.path === undefined) return undefined;
  try {
    return await readFile(await resolveInRepo(ctx.toolContext.root, prd.path), 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read the task's PRD: ${(error as Error).message}`, {
      where: `task.prd.path (${prd.path})`,
      hint: 'the PRD path is relative to the repository and must stay inside it.',
    });
  }
}

/**
 * Pre-planning: the request
 * with its discussion, the PRD, guidance files, environment information,
 * earlier runs on the same MR/issue and the top of the file tree.
 */
export async function gather(ctx: RunContext): Promise<Gathered> {
  const { deps } = ctx;
  const request = deps.request ? await deps.request.load(ctx.signal) : requestFromTask(ctx.task);
  const prd = await readPrd(ctx);
  const guidance = await readGuidance(ctx.toolContext.root);
  const environment = deps.environment
    ? await deps.environment.detect(ctx.repoDir, ctx.signal)
    : undefined;
  const history = await deps.history.pastExecutions();
  const { entries, truncated } = await walk(ctx.toolContext.root.real, '.', {
    recursive: true,
    limit: FILE_LIST_LIMIT,
  });
  // the agent's own state folder is not part of the project
  const stateDir = ctx.config.state.directory.replace(/^\.\//, '').replace(/\/$/, '');
  const files = entries
    .filter((e) => e.rel !== stateDir && !e.rel.startsWith(`${stateDir}/`))
    .map((e) => (e.kind === 'dir' ? `${e.rel}/` : e.rel));
  if (truncated) files.push(`… (more than ${FILE_LIST_LIMIT} entries)`);
  ctx.logger.info('context gathered', {
    source: request.source,
    comments: request.discussion.length,
    guidanceFiles: guidance.map((g) => g.path),
    environment: environment?.environment_type,
    pastRuns: history.length,
  });
  return {
    request,
    ...(prd !== undefined ? { prd } : {}),
    guidance,
    ...(environment ? { environment } : {}),
    history,
    files,
  };
}
