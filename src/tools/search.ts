import { readFile, stat } from 'node:fs/promises';
import { z } from 'zod';
import { looksBinary, walk } from './fs-walk.ts';
import { defineTool, ToolError } from './registry.ts';
import { displayPath, resolveInRepo } from './sandbox.ts';

const MAX_FILE_BYTES = 1024 * 1024;
const MAX_FILES = 20000;
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
    const info = await stat(start).catch(() => {
      throw new ToolError(`${args.path}: no such file or folder`);
    });
    const files = info.isDirectory()
      ? (
          await walk(start, displayPath(ctx.root, start), { recursive: true, limit: MAX_FILES })
        ).entries.filter((e) => e.kind === 'file')
      : [{ absolute: start, rel: displayPath(ctx.root, start) }];
    const hits: string[] = [];
    for (const file of files) {
      const size = (await stat(file.absolute)).size;
      if (size > MAX_FILE_BYTES) continue;
      const bytes = await readFile(file.absolute);
      if (looksBinary(bytes)) continue;
      const lines = bytes.toString('utf8').split('\n');
      for (let i = 0; i < lines.length; i++) {
        const line = lines[i]!.slice(0, MAX_LINE_CHARS);
        if (!test(line)) continue;
        hits.push(`${file.rel}:${i + 1}: ${line.trim().slice(0, SHOWN_LINE_CHARS)}`);
        if (hits.length >= args.max_results) {
          hits.push(`… stopped after ${args.max_results} matches`);
          return hits.join('\n');
        }
      }
    }
    return hits.length > 0 ? hits.join('\n') : `no matches for ${JSON.stringify(args.query)}`;
  },
});
