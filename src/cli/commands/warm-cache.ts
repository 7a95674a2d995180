import { readdirSync } from 'node:fs';
import module from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { CliIo } from '../io.ts';

/**
 * The bundle's chunks (scripts/bundle-cli.mjs): the folder this module is
 * in, when it runs from the bundle; none from the source tree.
 */
function bundleChunks(): string[] {
  const here = path.dirname(fileURLToPath(import.meta.url));
  if (path.basename(here) !== 'chunks') return [];
  return readdirSync(here)
    .filter((name) => name.endsWith('.mjs'))
    .map((name) => path.join(here, name));
}

/**
 * `mr-agent warm-compile-cache` (hidden): loads every chunk of the bundle,
 * those the commands load lazily included, so V8's compile cache
 * (NODE_COMPILE_CACHE) holds them all. The runner images run it once at
 * build time; a job then starts from compiled code instead of compiling the
 * chunks it needs, and posts its progress note sooner. Loading runs no
 * command: the chunks only define things.
 */
export async function warmCompileCache(io: CliIo): Promise<number> {
  const chunks = bundleChunks();
  await Promise.all(chunks.map((file) => import(pathToFileURL(file).href)));
  const cache = module.getCompileCacheDir?.();
  module.flushCompileCache?.();
  if (chunks.length === 0) {
    io.stdout.write('not the bundled command (dist/mr-agent.mjs): nothing to load\n');
  } else {
    io.stdout.write(
      cache
        ? `compile cache filled: ${cache} (${chunks.length} files)\n`
        : 'no compile cache is enabled (set NODE_COMPILE_CACHE); nothing was written\n',
    );
  }
  return 0;
}
