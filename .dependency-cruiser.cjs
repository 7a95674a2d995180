/**
 * The import rules of src/ (docs/architecture.md, "Layers"): no cycle between
 * files, none between folders, and imports only point down the layers.
 * `npm run lint` runs it.
 */
const KERNEL = '^src/(core|messages|config|errors|log|task|version\\.ts)';
const ADAPTERS = '^src/(shell|llm|gitlab|history|report|tools|workers|testkit)/';
const PHASES = '^src/phases/';
const RUN = '^src/(run|agent-runner|commands)/';
const ENTRIES = '^src/(ci|cli|demo|trigger|index\\.ts)';
/**
 * The adapters that do I/O: phases reach git, files, notes, the history and
 * the model through the run's ports (RunContext, RunDeps), never through
 * these. The shell's pure command builders (`sandbox-env.ts`,
 * `in-environment.ts`, `quote.ts`) and the LLM layer's reply parsers are no I/O.
 */
const IO_ADAPTERS =
  '^src/(gitlab|history)/|^src/shell/(?!(sandbox-env|in-environment|quote)\\.ts$)|^src/llm/(openai-llm|lazy-llm|prompt-files|recording-llm|api-keys)\\.ts$';

/** A rule forbidding `from` to import anything matching `to`. */
const layer = (name, from, to) => ({
  name,
  severity: 'error',
  comment: 'imports point down the layers: entries → run → phases → adapters → kernel',
  from: { path: from },
  to: { path: to },
});

module.exports = {
  forbidden: [
    {
      name: 'no-file-cycle',
      severity: 'error',
      comment: 'a cycle between files is a design error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-folder-cycle',
      severity: 'error',
      comment: 'a cycle between folders is a design error',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
    layer('kernel-stays-at-the-bottom', KERNEL, `${ADAPTERS}|${PHASES}|${RUN}|${ENTRIES}`),
    layer('adapters-below-phases', ADAPTERS, `${PHASES}|${RUN}|${ENTRIES}`),
    layer('phases-below-run', PHASES, `${RUN}|${ENTRIES}`),
    layer('run-below-entries', RUN, ENTRIES),
    {
      name: 'job-apart-from-bridge',
      severity: 'error',
      comment:
        'the CI job and the webhook bridge are two entries: what both need (comment commands) lives in src/commands/',
      from: { path: '^src/ci/' },
      to: { path: '^src/trigger/' },
    },
    {
      name: 'phases-use-ports',
      severity: 'error',
      comment: "phases reach git, files, notes and the model only through the run's ports",
      from: { path: PHASES },
      to: { path: IO_ADAPTERS, dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^src/',
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
  },
};
