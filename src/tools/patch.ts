import path from 'node:path';
import { applyPatch, parsePatch, type StructuredPatch } from 'diff';
import * as z from 'zod';
import { readCheckout, type CheckoutEntry } from '../shell/checkout-reader.ts';
import { writeCheckout, type CheckoutWrite } from '../shell/checkout-writer.ts';
import { refusal } from './files.ts';
import { defineTool, ToolError } from './registry.ts';
import type { ToolContext } from '../core/tool.ts';
import { displayPath, resolveInRepo } from './sandbox.ts';

const DEV_NULL = '/dev/null';

interface FileChange {
  kind: 'create' | 'modify' | 'delete';
  /** Absolute target path (for delete: the removed file). */
  target: string;
  /** Set when a rename removes the old file. */
  removeOld?: string;
  content: string;
}

/** Strips git's `a/` and `b/` prefixes when the patch uses them. */
function fileNames(patch: StructuredPatch): { oldName?: string; newName?: string } {
  const strip = (name: string | undefined, prefix: string) => {
    if (name === undefined || name === DEV_NULL) return name;
    return name.startsWith(prefix) ? name.slice(prefix.length) : name;
  };
  const prefixed =
    (patch.oldFileName ?? DEV_NULL).match(/^(a\/|\/dev\/null$)/) &&
    (patch.newFileName ?? DEV_NULL).match(/^(b\/|\/dev\/null$)/);
  const oldName = prefixed ? strip(patch.oldFileName, 'a/') : patch.oldFileName;
  const newName = prefixed ? strip(patch.newFileName, 'b/') : patch.newFileName;
  return {
    ...(oldName ? { oldName } : {}),
    ...(newName ? { newName } : {}),
  };
}

/**
 * What a path of the checkout holds, read as checkout-reader.ts reads: as
 * the command user once its commands may have run there.
 */
async function entryAt(ctx: ToolContext, file: string): Promise<CheckoutEntry | undefined> {
  const [entry] = await readCheckout(ctx.root.real, [path.relative(ctx.root.real, file)]);
  return entry;
}

async function exists(ctx: ToolContext, name: string): Promise<boolean> {
  return (await entryAt(ctx, await resolveInRepo(ctx.root, name)))?.kind !== 'missing';
}

async function readSource(ctx: ToolContext, file: string, shown: string): Promise<string> {
  const entry = await entryAt(ctx, file);
  if (entry?.kind === 'file') return entry.content.toString('utf8');
  if (!entry || entry.kind === 'missing') throw new ToolError(`${shown}: no such file or folder`);
  if (entry.kind === 'folder') throw new ToolError(`${shown}: is a folder, not a file`);
  if (entry.kind === 'link') throw new ToolError(`${shown}: changed into a symbolic link`);
  throw new ToolError(`${shown}: ${entry.why}`);
}

async function planChange(patch: StructuredPatch, ctx: ToolContext): Promise<FileChange> {
  const { oldName, newName } = fileNames(patch);
  if (!oldName && !newName) throw new ToolError('a file section of the patch names no file');
  if (newName === DEV_NULL && (!oldName || oldName === DEV_NULL))
    throw new ToolError('a deletion must name the file it deletes after ---');
  if (oldName === DEV_NULL && !newName) throw new ToolError('a new file must be named after +++');
  if (newName === DEV_NULL || (!newName && oldName)) {
    const target = await resolveInRepo(ctx.root, oldName!);
    await readSource(ctx, target, oldName!);
    return { kind: 'delete', target, content: '' };
  }
  const target = await resolveInRepo(ctx.root, newName!);
  const creating =
    !oldName ||
    oldName === DEV_NULL ||
    (patch.hunks.every((h) => h.oldLines === 0) && !(await exists(ctx, oldName)));
  const sourcePath = creating ? undefined : await resolveInRepo(ctx.root, oldName);
  const source = sourcePath ? await readSource(ctx, sourcePath, oldName!) : '';
  const result = applyPatch(source, patch, { fuzzFactor: 2 });
  if (result === false) {
    throw new ToolError(
      `the patch does not apply to ${newName}: its context lines do not match the file; read the file again and send a patch against its current content (or use write_file)`,
    );
  }
  return {
    kind: creating ? 'create' : 'modify',
    target,
    content: result,
    ...(sourcePath && sourcePath !== target ? { removeOld: sourcePath } : {}),
  };
}

export const applyPatchTool = defineTool({
  name: 'apply_patch',
  description:
    'Apply a unified diff (as produced by `diff -u` or `git diff`) to one or more files. Paths are relative to the repository root; new files use /dev/null as the old name. Either every file is changed or none.',
  args: z.strictObject({ patch: z.string().min(1).describe('The unified diff text.') }),
  async run(args, ctx) {
    let patches: StructuredPatch[];
    try {
      patches = parsePatch(args.patch);
    } catch (error) {
      throw new ToolError(`the patch cannot be parsed: ${(error as Error).message}`);
    }
    patches = patches.filter((p) => p.hunks.length > 0 || p.newFileName === DEV_NULL);
    if (patches.length === 0) throw new ToolError('the patch contains no hunks');
    const changes: FileChange[] = [];
    for (const patch of patches) changes.push(await planChange(patch, ctx));
    // one writer for every change: as the command user once its commands may have run
    const rel = (file: string) => path.relative(ctx.root.real, file);
    const writes: Array<{ change: FileChange; write: CheckoutWrite }> = [];
    for (const change of changes) {
      writes.push({
        change,
        write:
          change.kind === 'delete'
            ? { op: 'remove', rel: rel(change.target) }
            : {
                op: 'write',
                rel: rel(change.target),
                content: Buffer.from(change.content, 'utf8'),
              },
      });
      if (change.removeOld)
        writes.push({ change, write: { op: 'remove', rel: rel(change.removeOld) } });
    }
    const results = await writeCheckout(
      ctx.root.real,
      writes.map((w) => w.write),
      { isolation: ctx.isolation },
    );
    const report: string[] = [];
    const refused: string[] = [];
    for (const [i, { change, write }] of writes.entries()) {
      const shown = displayPath(ctx.root, path.join(ctx.root.real, write.rel));
      const result = results[i]!;
      if (
        result.kind === 'refused' ||
        (result.kind === 'missing' && write.rel === rel(change.target))
      )
        refused.push(`${shown}: ${refusal(result)}`);
      else if (write.rel === rel(change.target))
        report.push(`${change.kind === 'modify' ? 'modified' : `${change.kind}d`} ${shown}`);
    }
    if (refused.length > 0)
      throw new ToolError(
        [...refused, ...(report.length > 0 ? ['changed all the same:', ...report] : [])].join('\n'),
      );
    return report.join('\n');
  },
});
