import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bundleCli } from '../../scripts/bundle-cli.mjs';
import { CI_STEPS } from '../../src/ci/context.ts';
import { plainCiStep, STEP_CHOICES } from '../../src/cli/ci-argv.ts';
import * as sourceLogger from '../../src/log/logger.ts';
import { Redactor } from '../../src/log/redact.ts';
import { sourcesIn, type Metafile } from '../support/bundle-sources.ts';

const HOOK = path.resolve(import.meta.dirname, '../support/loaded-modules.mjs');

/**
 * Issue #22: each command loads what it uses and nothing else. The bundle is
 * built with its metafile; the command runs in a child process that records
 * every module it loads; the sources inside those files are then checked.
 */
describe('cli/start path: what each command loads (issue #22)', function () {
  this.timeout(120_000);
  let dir: string;
  let bin: string;
  let meta: Metafile;

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'mr-agent-start-path-'));
    bin = await bundleCli(path.join(dir, 'dist', 'mr-agent.mjs'), { metafile: true });
    meta = JSON.parse(readFileSync(`${bin}.meta.json`, 'utf8')) as Metafile;
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** The sources (repository-relative, node_modules by package) inside the files a command loaded. */
  function sourcesLoaded(args: string[], env: Record<string, string> = {}): string[] {
    const out = path.join(dir, 'loaded.json');
    execFileSync(process.execPath, ['--import', HOOK, bin, ...args], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', ...env, LOADED_MODULES_OUT: out },
      stdio: 'pipe',
    });
    const sources = sourcesIn(meta, JSON.parse(readFileSync(out, 'utf8')) as string[]);
    expect(sources.length, 'the loaded files are in the metafile').to.be.greaterThan(0);
    return sources;
  }

  const HEAVY = ['zod', 'openai', '@gitbeaker/core', '@gitbeaker/rest', 'fflate', 'undici'];

  for (const args of [['--version'], ['--help']]) {
    it(`\`mr-agent ${args.join(' ')}\` loads commander and the program only`, () => {
      const sources = sourcesLoaded(args);
      // errors.ts (2 KB, no imports): the program maps commander's usage errors to UsageError.
      expect(sources.filter((s) => !s.startsWith('src/cli/'))).to.deep.equal([
        'commander',
        'package.json',
        'src/errors/errors.ts',
        'src/version.ts',
      ]);
    });
  }

  it('`mr-agent detect` loads no schema library, SDK, GitLab client or zip support', () => {
    const repo = path.join(dir, 'repo');
    mkdirSync(repo, { recursive: true });
    writeFileSync(path.join(repo, 'package.json'), '{"name":"x","scripts":{"test":"node t"}}');
    const sources = sourcesLoaded(['detect', repo]);
    expect(sources).to.include('src/cli/commands/detect.ts');
    expect(sources.filter((s) => HEAVY.includes(s))).to.deep.equal([]);
  });

  it('`mr-agent setup` at its default log level loads no logging library, SDK, GitLab client or zip support', () => {
    const repo = path.join(dir, 'setup-repo');
    mkdirSync(path.join(repo, 'test'), { recursive: true });
    writeFileSync(
      path.join(repo, 'package.json'),
      '{"name":"x","private":true,"scripts":{"test":"node --test"}}',
    );
    writeFileSync(
      path.join(repo, 'test', 'one.test.js'),
      "require('node:test')('runs', () => {});\n",
    );
    const sources = sourcesLoaded(['setup', repo], {
      HOME: dir,
      npm_config_cache: path.join(dir, 'npm-cache'),
      XDG_CACHE_HOME: path.join(dir, 'cache'),
    });
    expect(sources).to.include('src/cli/commands/setup.ts');
    expect(sources).to.include('src/log/lazy-logger.ts');
    // winston and its formats load only when a line at the level is written (lazy-logger.ts)
    expect(sources.filter((s) => ['winston', 'logform', ...HEAVY].includes(s))).to.deep.equal([
      'zod',
    ]);
  });

  it('`mr-agent ci` on a comment that is not a command loads no SDK, GitLab client or zip support', () => {
    const payload = path.join(dir, 'TRIGGER_PAYLOAD');
    writeFileSync(
      payload,
      JSON.stringify({
        object_kind: 'note',
        user: { id: 5, username: 'dev' },
        project: { id: 1, default_branch: 'main' },
        object_attributes: { id: 77, note: 'LGTM, thanks!', noteable_type: 'MergeRequest' },
        merge_request: { iid: 3, source_branch: 'feature/x' },
      }),
    );
    const sources = sourcesLoaded(['ci'], {
      CI: 'true',
      CI_API_V4_URL: 'https://gitlab.example.com/api/v4',
      CI_PROJECT_ID: '1',
      CI_PROJECT_DIR: dir,
      CI_DEFAULT_BRANCH: 'main',
      CI_PIPELINE_ID: '1',
      CI_JOB_ID: '2',
      CI_PIPELINE_SOURCE: 'trigger',
      TRIGGER_PAYLOAD: payload,
    });
    expect(sources).to.include('src/cli/commands/ci.ts');
    // zod validates the payload: the one heavy library this decision uses.
    expect(sources.filter((s) => HEAVY.includes(s))).to.deep.equal(['zod']);
    // the component's job runs `mr-agent ci` as it is: no command-line parser before the job starts
    expect(sources.filter((s) => s === 'commander' || s === 'src/cli/program.ts')).to.deep.equal(
      [],
    );
  });

  it('A3 `ci`, `ci --step <step>` and `ci --step=<step>` mean what commander makes of them; anything else goes through commander', async () => {
    const { buildProgram } = await import('../../src/cli/program.ts');
    const stepsByCommander = async (argv: string[]): Promise<string | undefined> => {
      let asked: string | undefined;
      const io = {
        argv,
        env: {},
        cwd: dir,
        stdout: { write: () => true },
        stderr: { write: () => true },
        readStdin: async () => undefined,
      };
      const program = buildProgram(io as never, { code: 0 });
      program.exitOverride();
      const ci = program.commands.find((c) => c.name() === 'ci')!;
      ci.exitOverride();
      ci.configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
      ci.action((options: { step: string }) => {
        asked = options.step;
      });
      await program.parseAsync(argv, { from: 'user' }).catch(() => undefined);
      return asked;
    };
    const argvs = [
      ['ci'],
      ['ci', '--step', 'plan'],
      ['ci', '--step=run'],
      ['ci', '--step', 'all'],
      ['ci', '--step', 'later'],
      ['ci', '--step'],
      ['ci', '--help'],
      ['ci', '--step', 'plan', 'extra'],
      ['ci', '--stp', 'plan'],
      ['--json', 'ci'],
      ['run'],
    ];
    for (const argv of argvs) {
      const commander = await stepsByCommander(argv);
      const plain = plainCiStep(argv);
      // where the shortcut answers, commander answers the same; where commander refuses, the shortcut does not answer
      if (plain !== undefined) expect(commander, argv.join(' ')).to.equal(plain);
      else expect(['ci', 'ci --step all'], argv.join(' ')).not.to.include(argv.join(' '));
    }
    expect(argvs.filter((argv) => plainCiStep(argv) !== undefined)).to.deep.equal([
      ['ci'],
      ['ci', '--step', 'plan'],
      ['ci', '--step=run'],
      ['ci', '--step', 'all'],
    ]);
  });

  it('`mr-agent warm-compile-cache` (the runner images fill the compile cache with it) loads every file of the bundle', () => {
    const out = path.join(dir, 'loaded.json');
    execFileSync(process.execPath, ['--import', HOOK, bin, 'warm-compile-cache'], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', LOADED_MODULES_OUT: out },
      stdio: 'pipe',
    });
    const loaded = (JSON.parse(readFileSync(out, 'utf8')) as string[])
      .filter((url) => url.startsWith('file:'))
      .map((url) => fileURLToPath(url));
    // every file but the library entry (index.mjs), which the command never loads
    const files = Object.keys(meta.outputs)
      .filter((output) => path.basename(output) !== 'index.mjs')
      .map((output) => path.resolve(output));
    expect(files.filter((file) => !loaded.includes(file))).to.deep.equal([]);
  });

  it("the GitLab client in the bundle is the resources the adapter uses: no @gitbeaker/rest, none of gitbeaker's own rate limiting (mr-agent's transport paces GitLab), no cluster", () => {
    const inputs = [
      ...new Set(Object.values(meta.outputs).flatMap((output) => Object.keys(output.inputs))),
    ];
    expect(inputs.filter((input) => input.includes('node_modules/@gitbeaker/rest/'))).to.deep.equal(
      [],
    );
    // gitbeaker's per-endpoint limits (rate-limiter-flexible, matched by picomatch) are never
    // created: the requester is mr-agent's own, which waits for GitLab's 429 and Retry-After
    expect(
      inputs.filter((input) =>
        /node_modules\/(rate-limiter-flexible|picomatch-browser)\//.test(input),
      ),
    ).to.deep.equal([]);
    // qs (gitbeaker's query strings) finds cycles with the engine's WeakMap, not side-channel and
    // the packages it pulls in for engines without one
    expect(
      inputs.filter((input) =>
        /node_modules\/(side-channel[^/]*|get-intrinsic|call-bound|object-inspect)\//.test(input),
      ),
    ).to.deep.equal([]);
    // @gitbeaker/core's resources are imported by name: the few dozen used, not all ~200
    const chunk = Object.entries(meta.outputs).find(([, output]) =>
      Object.keys(output.inputs).some((input) => input.endsWith('@gitbeaker/core/dist/index.mjs')),
    );
    const core = Object.entries(chunk![1].inputs).find(([input]) =>
      input.endsWith('@gitbeaker/core/dist/index.mjs'),
    )![1] as { bytesInOutput: number };
    expect(core.bytesInOutput, 'bytes of @gitbeaker/core in the bundle').to.be.below(80_000);
    for (const file of Object.keys(meta.outputs).filter((output) => output.endsWith('.mjs'))) {
      expect(readFileSync(file, 'utf8'), file).not.to.match(/require\("(node:)?cluster"\)/);
    }
  });

  it("zod in the bundle carries its English messages only, not the 60-odd locales of `z.locales` (loaded before every job's first note)", () => {
    const locales = [
      ...new Set(
        Object.values(meta.outputs)
          .flatMap((output) => Object.keys(output.inputs))
          .filter((input) => /node_modules\/zod\/v4\/locales\//.test(input))
          .map((input) => path.basename(input)),
      ),
    ];
    expect(locales).to.deep.equal(['en.js']);
  });

  it('the YAML library in the bundle is its ES module build (hoisted into its chunk and compile-cached), not its CommonJS one', () => {
    const inputs = Object.values(meta.outputs).flatMap((output) => Object.keys(output.inputs));
    const yaml = inputs.filter((input) => input.includes('node_modules/yaml/'));
    expect(yaml.length, 'the YAML library is bundled').to.be.greaterThan(0);
    expect(yaml.filter((input) => !input.includes('node_modules/yaml/browser/'))).to.deep.equal([]);
  });

  it('zod in the bundle is the part mr-agent calls: no JSON Schema reader, template literals, files, promises or deep partials', () => {
    const code = Object.keys(meta.outputs)
      .filter((output) => output.endsWith('.mjs'))
      .map((output) => readFileSync(path.resolve(output), 'utf8'))
      .join('\n');
    for (const unused of [
      'fromJSONSchema',
      'ZodTemplateLiteral',
      'ZodFile',
      'ZodPromise',
      'deepPartial',
    ])
      expect(code, unused).not.to.include(unused);
    expect(code, 'zod itself is bundled').to.include('__zod_globalConfig');
  });

  it("winston in the bundle runs on Node's own streams, not a bundled copy of them (readable-stream)", () => {
    const inputs = Object.values(meta.outputs).flatMap((output) => Object.keys(output.inputs));
    expect(inputs.filter((input) => input.includes('node_modules/readable-stream/'))).to.deep.equal(
      [],
    );
  });

  it("the bundled logger (winston on Node's own streams) writes the lines winston writes from node_modules, JSON and text", async () => {
    const output = Object.entries(meta.outputs).find(([, o]) =>
      Object.keys(o.inputs).includes('src/log/logger.ts'),
    )![0];
    const bundled = (await import(pathToFileURL(path.resolve(output)).href)) as typeof sourceLogger;
    const redactor = new Redactor();
    redactor.add('sk-secret-value');
    const lines = (logging: typeof sourceLogger, format: 'json' | 'text') => {
      const { logger, lines } = logging.createMemoryLogger({ format, level: 'debug', redactor });
      logger.info('job started', { step: 'all', target: { kind: 'merge_request', iid: 3 } });
      logger.warn('token sk-secret-value refused', { status: 401 });
      logger.error(new Error('boom'));
      logger.debug('prompt', { chars: 1200 });
      logger.child({ task_id: 'job-1' }).info('phase started', { phase: 'planning' });
      logger.log('info', 'command accepted', { delivery: 'd-1' });
      return lines.map((line) => line.replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, '<time>'));
    };
    for (const format of ['json', 'text'] as const) {
      const expected = lines(sourceLogger, format);
      expect(expected, format).to.have.length(6);
      expect(lines(bundled, format), format).to.deep.equal(expected);
    }
  });

  it('the --step choices are the CI steps', () => {
    expect([...STEP_CHOICES]).to.deep.equal([...CI_STEPS]);
  });
});
