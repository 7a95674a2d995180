import { listCheckout, readCheckout } from '../shell/checkout-reader.ts';
import { writeCheckout, type CheckoutWriteResult } from '../shell/checkout-writer.ts';
import path from 'node:path';
import * as z from 'zod';
import { looksBinary, SKIPPED_DIRS } from './fs-walk.ts';
import { defineTool, ToolError } from './registry.ts';
import { displayPath, resolveInRepo } from './sandbox.ts';

const MAX_READ_BYTES = 20 * 1024 * 1024;

export const listFiles = defineTool({
  name: 'list_files',
  description:
    'List files and folders of the repository. Folders end with "/". `.git` and dependency folders are not descended into.',
  args: z.strictObject({
    path: z.string().default('.').describe('Folder, relative to the repository root.'),
    recursive: z.boolean().default(false).describe('Also list sub-folders.'),
    max_entries: z.number().int().min(1).max(5000).default(500),
  }),
  async run(args, ctx) {
    const dir = await resolveInRepo(ctx.root, args.path);
    const shown = displayPath(ctx.root, dir);
    // as the command user once its commands may have run (checkout-reader.ts)
    const listing = await listCheckout(ctx.root.real, path.relative(ctx.root.real, dir), {
      recursive: args.recursive,
      limit: args.max_entries,
      skipped: SKIPPED_DIRS,
    });
    if (listing.kind === 'missing') throw new ToolError(`${args.path}: no such file or folder`);
    if (listing.kind === 'not-folder')
      throw new ToolError(`${args.path}: is a file; use read_file`);
    if (listing.kind === 'refused') throw new ToolError(`${args.path}: ${listing.why}`);
    const lines = listing.entries.map((e) =>
      e.kind === 'dir' ? `${e.rel}/` : e.kind === 'link' ? `${e.rel} (symbolic link)` : e.rel,
    );
    if (listing.truncated) lines.push(`… stopped after ${args.max_entries} entries`);
    return lines.length > 0 ? lines.join('\n') : `${shown}/ is empty`;
  },
});

export const readFileTool = defineTool({
  name: 'read_file',
  description:
    'Read a text file of the repository, optionally only lines start_line..end_line (1-based, inclusive).',
  args: z
    .strictObject({
      path: z.string().describe('File path relative to the repository root.'),
      start_line: z.number().int().min(1).optional(),
      end_line: z.number().int().min(1).optional(),
    })
    .refine((a) => !a.start_line || !a.end_line || a.end_line >= a.start_line, {
      message: 'end_line must not be before start_line',
    }),
  async run(args, ctx) {
    const file = await resolveInRepo(ctx.root, args.path);
    // as the command user once the checkout is theirs (checkout-reader.ts): a folder
    // swapped for a link after the check reaches nothing that user could not read
    const [read] = await readCheckout(ctx.root.real, [path.relative(ctx.root.real, file)], {
      cap: MAX_READ_BYTES + 1,
    });
    if (!read || read.kind === 'missing')
      throw new ToolError(`${args.path}: no such file or folder`);
    if (read.kind === 'folder') throw new ToolError(`${args.path}: is a folder; use list_files`);
    if (read.kind === 'link') throw new ToolError(`${args.path}: changed into a symbolic link`);
    if (read.kind === 'skip') throw new ToolError(`${args.path}: ${read.why}`);
    if (read.size > MAX_READ_BYTES)
      throw new ToolError(`${args.path}: is ${read.size} bytes, too large to read`);
    const bytes = read.content;
    if (looksBinary(bytes)) return `${args.path}: binary file, ${bytes.length} bytes`;
    const lines = bytes.toString('utf8').split('\n');
    if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
    const total = lines.length;
    if (args.start_line === undefined && args.end_line === undefined)
      return `${args.path} (${total} lines)\n${lines.join('\n')}`;
    const from = args.start_line ?? 1;
    const to = Math.min(args.end_line ?? total, total);
    if (from > total) throw new ToolError(`${args.path}: has only ${total} lines`);
    return `${args.path} (lines ${from}-${to} of ${total})\n${lines.slice(from - 1, to).join('\n')}`;
  },
});

export const writeFileTool = defineTool({
  name: 'write_file',
  description:
    'Create or replace a file of the repository with the given content. Parent folders are created.',
  args: z.strictObject({
    path: z.string().describe('File path relative to the repository root.'),
    content: z.string().describe('The complete new content of the file.'),
  }),
  async run(args, ctx) {
    const file = await resolveInRepo(ctx.root, args.path);
    const [result] = await writeCheckout(
      ctx.root.real,
      [
        {
          op: 'write',
          rel: path.relative(ctx.root.real, file),
          content: Buffer.from(args.content, 'utf8'),
        },
      ],
      { isolation: ctx.isolation },
    );
    if (result?.kind !== 'written')
      throw new ToolError(`${args.path}: ${refusal(result)}; nothing was written`);
    const bytes = Buffer.byteLength(args.content, 'utf8');
    return `${result.created ? 'created' : 'replaced'} ${displayPath(ctx.root, file)} (${bytes} bytes)`;
  },
});

/** Why the checkout writer changed nothing, for the model. */
export function refusal(result: CheckoutWriteResult | undefined): string {
  if (result?.kind === 'refused') return `refused: ${result.why}`;
  if (result?.kind === 'missing') return 'no such file or folder';
  return 'refused';
}
