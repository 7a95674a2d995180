import module from 'node:module';
import type { CliIo } from '../io.ts';

/**
 * `mr-agent warm-compile-cache` (hidden): loads every module the commands
 * load lazily, so V8's compile cache (NODE_COMPILE_CACHE) holds them all.
 * The runner images run it once at build time; a job then starts from
 * compiled code instead of compiling the chunks it needs (issue #22).
 * Loading runs no command: the modules only define things.
 */
export async function warmCompileCache(io: CliIo): Promise<number> {
  const loads = [
    import('../errors-out.ts'),
    import('./ci.ts'),
    import('../../ci/steps.ts'),
    import('../../gitlab/gitbeaker-adapter.ts'),
    import('../../trigger/gitlab-bridge.ts'),
    import('./config-check.ts'),
    import('./detect.ts'),
    import('./run-local.ts'),
    import('./run-factories.ts'),
    import('./serve.ts'),
    import('./demo.ts'),
  ];
  await Promise.all(loads);
  const cache = module.getCompileCacheDir?.();
  module.flushCompileCache?.();
  io.stdout.write(
    cache
      ? `compile cache filled: ${cache}\n`
      : 'no compile cache is enabled (set NODE_COMPILE_CACHE); nothing was written\n',
  );
  return 0;
}
