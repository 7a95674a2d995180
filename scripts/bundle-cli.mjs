// Bundles the command: `dist/mr-agent.mjs` for `npm run build`, or any other
// path (the component tests put it on PATH as `mr-agent`). The entry is small;
// what each command needs is split into chunks beside it (`chunks/`, loaded
// with `import()` when the command runs), so `mr-agent --version` reads and
// compiles a few hundred KB instead of the whole 4.6 MB. The library entry
// (`index.mjs`, the package's `exports`) is built in the same pass and shares
// the chunks. Every dependency is bundled: the package installs no other
// package. The entries and their `chunks/` folder go together: copy all.
import { build } from 'esbuild';
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * Packages the bundle takes in part: each maps to a module of `bundle-shims/`
 * that re-exports only what mr-agent and its dependencies use, or stands in
 * for what they never call (gitbeaker's own rate limiting).
 */
const SHIMS = {
  'gitbeaker rate limits': path.resolve(
    import.meta.dirname,
    'bundle-shims/gitbeaker-rate-limits.mjs',
  ),
  'zod locales': path.resolve(import.meta.dirname, 'bundle-shims/zod-locales.mjs'),
  'side-channel': path.resolve(import.meta.dirname, 'bundle-shims/side-channel.cjs'),
  'readable-stream': path.resolve(import.meta.dirname, 'bundle-shims/readable-stream.mjs'),
  'readable-stream/lib/_stream_writable.js': path.resolve(
    import.meta.dirname,
    'bundle-shims/readable-stream-writable.cjs',
  ),
};

/**
 * Packages taken in their ES module build where Node would be given their
 * CommonJS one. Bundled, a CommonJS module becomes a function that runs on
 * first `require`: compiled then from source, every job, since V8's compile
 * cache keeps only the code compiled with the file. An ES module is hoisted
 * into its chunk and comes out of the cache. The YAML library (parsed before
 * a job's first progress note when the project has `.mr-agent.yml`) ships
 * the same code in both forms; its ES build is the one it gives any
 * non-Node environment.
 */
const ESM_BUILDS = {
  yaml: path.join(
    path.dirname(createRequire(import.meta.url).resolve('yaml/package.json')),
    'browser/index.js',
  ),
};

/** The files of winston and of winston-transport (the base class of its transports). */
const WINSTON = /[\\/]node_modules[\\/]winston(-transport)?[\\/]/;

const shims = {
  name: 'mr-agent-shims',
  setup(build) {
    build.onResolve({ filter: /^yaml$/ }, () => ({ path: ESM_BUILDS.yaml }));
    build.onResolve({ filter: /^side-channel$/ }, (args) => ({ path: SHIMS[args.path] }));
    build.onResolve({ filter: /^(rate-limiter-flexible|picomatch-browser)$/ }, () => ({
      path: SHIMS['gitbeaker rate limits'],
    }));
    build.onResolve({ filter: /^readable-stream(\/lib\/_stream_writable\.js)?$/ }, (args) =>
      WINSTON.test(args.importer) ? { path: SHIMS[args.path] } : undefined,
    );
    // zod's locale index, imported by its classic API and its core
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]v4[\\/]/.test(args.importer)
        ? { path: SHIMS['zod locales'] }
        : undefined,
    );
  },
};

const banner = {
  js: "import { createRequire as __mrAgentCreateRequire } from 'node:module'; const require = __mrAgentCreateRequire(import.meta.url);",
};

/** The folder of chunks beside the entry `outfile`. */
export function chunksDir(outfile = 'dist/mr-agent.mjs') {
  return path.join(path.dirname(outfile), 'chunks');
}

/**
 * Bundles the command into `outfile`, the library into `index.mjs` and what
 * they load into `chunks/` beside them. With
 * `metafile`, esbuild's account of which sources went into which output file
 * is written to `<outfile>.meta.json` (the start-path tests read it).
 */
export async function bundleCli(outfile = 'dist/mr-agent.mjs', options = {}) {
  const outdir = path.dirname(outfile);
  rmSync(chunksDir(outfile), { recursive: true, force: true });
  const result = await build({
    entryPoints: {
      [path.basename(outfile, '.mjs')]: path.resolve(import.meta.dirname, '../src/cli/bin.ts'),
      index: path.resolve(import.meta.dirname, '../src/index.ts'),
    },
    outdir,
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    banner,
    legalComments: 'none',
    plugins: [shims],
    logLevel: 'warning',
    metafile: options.metafile === true,
  });
  if (result.metafile) writeFileSync(`${outfile}.meta.json`, JSON.stringify(result.metafile));
  chmodSync(outfile, 0o755);
  return outfile;
}
