/**
 * Checkpoints as hidden refs on the project's remote: one commit per run
 * under `refs/mr-agent/<target>/<run-id>` whose tree holds
 * `checkpoint.json` and `change.patch`, pushed with the bot's token through
 * the agent's hardened git. A ref is no branch: no pipeline, no merge
 * request, no protected-branch rule; a job killed without artifacts leaves
 * it behind for the next one. The run id in the ref keeps concurrent runs
 * on one merge request apart.
 */
import type { CheckoutPort } from '../../core/checkout-port.ts';
import type { Logger } from '../../log/logger.ts';
import type { Redactor } from '../../log/redact.ts';
import type { Shell } from '../../core/shell-port.ts';
import {
  Checkpoint,
  type CheckpointContent,
  type CheckpointStore,
  type FoundCheckpoint,
} from '../../core/checkpoint.ts';
import { deliveryGit, type Git } from './git.ts';
import { stageChanges } from './stage.ts';
import type { DeliveryTarget } from './types.ts';

export interface CheckpointRefOptions {
  repoDir: string;
  shell: Shell;
  /** Git and the reader of the checkout's files. */
  checkout: CheckoutPort;
  hostEnv: Readonly<Record<string, string | undefined>>;
  redactor: Redactor;
  logger: Logger;
  token: string;
  remoteUrl: string;
  target: DeliveryTarget;
  runId: string;
  stateDir: string;
  author: { name: string; email: string };
  now: () => number;
}

const REF_ROOT = 'refs/mr-agent';

/** A ref name component: what git allows, nothing else. */
function refSafe(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[.-]+|\.+$/g, '') || 'run';
}

/** `mr-<iid>`, `issue-<iid>` or `branch-<name>`. */
export function checkpointTarget(target: DeliveryTarget): string {
  switch (target.kind) {
    case 'merge_request':
      return `mr-${target.mergeRequest.iid}`;
    case 'issue':
      return `issue-${target.issue.iid}`;
    case 'branch':
      return `branch-${refSafe(target.branch)}`;
  }
}

export function createCheckpointRefs(options: CheckpointRefOptions): CheckpointStore {
  const target = checkpointTarget(options.target);
  const prefix = `${REF_ROOT}/${target}/`;
  const ownRef = `${prefix}${refSafe(options.runId)}`;
  const git = deliveryGit(options.checkout, {
    shell: options.shell,
    cwd: options.repoDir,
    hostEnv: options.hostEnv,
    redactor: options.redactor,
    logger: options.logger,
    token: options.token,
    remoteUrl: options.remoteUrl,
    identity: options.author,
  });
  let base: Promise<string> | undefined;
  const baseCommit = () => (base ??= git.must(['rev-parse', 'HEAD']).then((s) => s.trim()));

  /** The working tree's change against `from`, staged by the agent itself, the index left as it was. */
  async function changePatch(from: string): Promise<string> {
    await stageChanges(git, options.repoDir, options.stateDir, options.checkout.read);
    try {
      return wholeLines(
        await git.must([
          'diff',
          '--cached',
          '--binary',
          '--no-color',
          '--no-ext-diff',
          '--no-textconv',
          from,
        ]),
      );
    } finally {
      await git.run(['reset', '-q']);
    }
  }

  async function writeBlob(content: string): Promise<string> {
    return (await git.must(['hash-object', '-w', '--stdin'], content)).trim();
  }

  return {
    async save(content: CheckpointContent, pushed?: string): Promise<void> {
      if (pushed) base = Promise.resolve(pushed);
      const from = await baseCommit();
      const checkpoint = Checkpoint.parse({
        version: 1,
        run_id: options.runId,
        target,
        created_at: new Date(options.now()).toISOString(),
        base_commit: from,
        ...content,
      });
      const redact = (text: string) => options.redactor.redact(text);
      const json = await writeBlob(redact(JSON.stringify(checkpoint, null, 2)));
      const patch = await writeBlob(redact(await changePatch(from)));
      const tree = (
        await git.must(
          ['mktree'],
          `100644 blob ${patch}\tchange.patch\n100644 blob ${json}\tcheckpoint.json\n`,
        )
      ).trim();
      const commit = (
        await git.must(['commit-tree', tree, '-p', from, '-m', `mr-agent checkpoint ${target}`])
      ).trim();
      await git.must(['push', '--quiet', '--force', options.remoteUrl, `${commit}:${ownRef}`]);
      options.logger.info('checkpoint saved', {
        ref: ownRef,
        completed: checkpoint.completed.length,
      });
    },

    async discard(): Promise<void> {
      await this.discardRef(ownRef);
    },

    async discardRef(ref: string): Promise<void> {
      if (!ref.startsWith(prefix)) throw new Error(`not a checkpoint ref of ${target}: ${ref}`);
      const result = await git.run(['push', '--quiet', options.remoteUrl, `:${ref}`]);
      if (result.exitCode === 0) options.logger.info('checkpoint removed', { ref });
    },

    async newest(): Promise<FoundCheckpoint> {
      const listed = await git.must(['ls-remote', options.remoteUrl, `${prefix}*`]);
      const refs = listed
        .split('\n')
        .map((line) => line.split('\t')[1]?.trim())
        .filter((ref): ref is string => !!ref && ref.startsWith(prefix) && ref !== ownRef);
      let newest: Extract<FoundCheckpoint, { kind: 'found' }> | undefined;
      let corrupt: Extract<FoundCheckpoint, { kind: 'corrupt' }> | undefined;
      for (const ref of refs) {
        const local = `refs/mr-agent-fetched/${ref.slice(REF_ROOT.length + 1)}`;
        const fetched = await git.run([
          'fetch',
          '--quiet',
          '--no-tags',
          options.remoteUrl,
          `+${ref}:${local}`,
        ]);
        if (fetched.exitCode !== 0) continue;
        const read = await readCheckpoint(git, local);
        if (read.kind === 'corrupt') corrupt = { kind: 'corrupt', ref, problem: read.problem };
        else if (!newest || read.checkpoint.created_at > newest.checkpoint.created_at)
          newest = { kind: 'found', ref, checkpoint: read.checkpoint, patch: read.patch };
      }
      return newest ?? corrupt ?? { kind: 'none' };
    },
  };
}

async function readCheckpoint(
  git: Git,
  commit: string,
): Promise<
  { kind: 'ok'; checkpoint: Checkpoint; patch: string } | { kind: 'corrupt'; problem: string }
> {
  const json = await git.run(['cat-file', 'blob', `${commit}:checkpoint.json`]);
  const patch = await git.run(['cat-file', 'blob', `${commit}:change.patch`]);
  if (json.exitCode !== 0 || patch.exitCode !== 0)
    return { kind: 'corrupt', problem: 'checkpoint.json or change.patch is missing' };
  let data: unknown;
  try {
    data = JSON.parse(json.stdout);
  } catch (error) {
    return { kind: 'corrupt', problem: `checkpoint.json is no JSON (${(error as Error).message})` };
  }
  const parsed = Checkpoint.safeParse(data);
  if (!parsed.success)
    return {
      kind: 'corrupt',
      problem: `checkpoint.json: ${parsed.error.issues
        .slice(0, 3)
        .map((i) => `${i.path.join('.') || '(root)'} ${i.message}`)
        .join('; ')}`,
    };
  return { kind: 'ok', checkpoint: parsed.data, patch: wholeLines(patch.stdout) };
}

/** A patch whose last line ends in a newline (the shell's output loses it; `git apply` needs it). */
function wholeLines(patch: string): string {
  return patch === '' || patch.endsWith('\n') ? patch : `${patch}\n`;
}
