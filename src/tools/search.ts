import path from 'node:path';
import * as z from 'zod';
import { listCheckout, readCheckout } from '../shell/checkout-reader.ts';
import { looksBinary, SKIPPED_DIRS } from './fs-walk.ts';
import { defineTool, ToolError } from './registry.ts';
import { displayPath, resolveInRepo } from './sandbox.ts';

const MAX_FILE_BYTES = 1024 * 1024;
const MAX_FILES = 20000;
/** Bytes of files read by one reader process at most (a larger file alone). */
const BATCH_BYTES = 16 * 1024 * 1024;
/** Long lines are only searched up to here (keeps regular expressions cheap). */
const MAX_LINE_CHARS = 2000;
const SHOWN_LINE_CHARS = 200;

function matcher(query: string, regex: boolean, caseSensitive: boolean): (line: string) => boolean {
  if (regex) {
    let re: RegExp;
    try {
      re = new RegExp(query, caseSensitive ? '' : 'i');
    } catch (error) {
      throw new ToolError(`invalid regular expression: ${(error as Error).message}`);
    }
    return (line) => re.test(line);
  }
  const needle = caseSensitive ? query : query.toLowerCase();
  return (line) => (caseSensitive ? line : line.toLowerCase()).includes(needle);
}

export const searchCode = defineTool({
  name: 'search_code',
  description:
    'Search the text files of the repository for a string (or a regular expression). Returns "path:line: text" lines.',
  args: z.strictObject({
    query: z.string().min(1),
    regex: z.boolean().default(false).describe('Treat query as a JavaScript regular expression.'),
    path: z.string().default('.').describe('Folder or file to search in.'),
    case_sensitive: z.boolean().default(false),
    max_results: z.number().int().min(1).max(1000).default(100),
  }),
  async run(args, ctx) {
    const start = await resolveInRepo(ctx.root, args.path);
    const test = matcher(args.query, args.regex, args.case_sensitive);
    const startRel = path.relative(ctx.root.real, start);
    // listed and read as the command user once its commands may have run (checkout-reader.ts):
    // a folder swapped for a link leads to nothing that user could not read anyway
    const listing = await listCheckout(ctx.root.real, startRel, {
      recursive: true,
      limit: MAX_FILES,
      skipped: SKIPPED_DIRS,
    });
    if (listing.kind === 'missing') throw new ToolError(`${args.path}: no such file or folder`);
    if (listing.kind === 'refused') throw new ToolError(`${args.path}: ${listing.why}`);
    const files =
      listing.kind === 'listed'
        ? listing.entries.filter((e) => e.kind === 'file' && e.size <= MAX_FILE_BYTES)
        : [{ rel: startRel, size: 0 }];
    const hits: string[] = [];
    for (const batch of batches(files)) {
      const read = await readCheckout(
        ctx.root.real,
        batch.map((f) => f.rel),
        { cap: MAX_FILE_BYTES + 1 },
      );
      for (const [i, entry] of read.entries()) {
        if (entry.kind !== 'file' || entry.size > MAX_FILE_BYTES) continue;
        if (looksBinary(entry.content)) continue;
        const shown = displayPath(ctx.root, path.join(ctx.root.real, batch[i]!.rel));
        const lines = entry.content.toString('utf8').split('\n');
        for (let n = 0; n < lines.length; n++) {
          const line = lines[n]!.slice(0, MAX_LINE_CHARS);
          if (!test(line)) continue;
          hits.push(`${shown}:${n + 1}: ${line.trim().slice(0, SHOWN_LINE_CHARS)}`);
          if (hits.length >= args.max_results) {
            hits.push(`… stopped after ${args.max_results} matches`);
            return hits.join('\n');
          }
        }
      }
    }
    return hits.length > 0 ? hits.join('\n') : `no matches for ${JSON.stringify(args.query)}`;
  },
});

/** Files in groups of at most BATCH_BYTES (by their listed size): one reader process each. */
function* batches<T extends { size: number }>(files: readonly T[]): Generator<T[]> {
  let batch: T[] = [];
  let bytes = 0;
  for (const file of files) {
    if (batch.length > 0 && bytes + file.size > BATCH_BYTES) {
      yield batch;
      batch = [];
      bytes = 0;
    }
    batch.push(file);
    bytes += file.size;
  }
  if (batch.length > 0) yield batch;
}
