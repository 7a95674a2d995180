import path from 'node:path';
import { tagVersion } from '../../detect/ci-config.ts';
import { positional, type CommandRule } from '../../detect/commands.ts';
import { readText } from '../build-files.ts';
import type { EnvironmentKind, TestDetector } from '../kind.ts';
import { sig } from '../signature.ts';
import { analyzeNode, TOOL_NAMES } from './analyze.ts';
import { nodeRegistryHosts } from './registry-hosts.ts';

const NPM_DEFAULT_TEST = 'echo "Error: no test specified" && exit 1';
const TEST_SCRIPT = /^test(?::[\w:-]+)?$|^(?:unit|ci)(?::?test)?$/;
/** Test scripts that check types, lint or measure instead of running tests. */
const CHECK_SCRIPT =
  /^test[:-](?:types?|typecheck|type-check|tsd|tsc|dts|lint|format|style|size|exports|publint|attw)$/;
/** Test scripts that drive a browser (browser and end-to-end suites). */
const BROWSER_SCRIPT =
  /^(?:test[:-])?(?:browsers?|e2e|playwright|cypress|wdio|karma|puppeteer)(?:[:-][\w:-]+)?$|^test[:-](?:ui|headless)$/;
/** Test runners a package manager runs from node_modules (`pnpm vitest`, `npx jest`). */
const TEST_RUNNERS = new Set(['vitest', 'jest', 'mocha', 'ava', 'tap', 'uvu', 'jasmine', 'tape']);

/** `npm test`, `pnpm test` or `yarn test`: the selected package manager runs the script. */
function nodeTest(packageManager: string | undefined): TestDetector {
  const runner = packageManager === 'pnpm' || packageManager === 'yarn' ? packageManager : 'npm';
  return async (dir) => {
    const text = await readText(path.join(dir, 'package.json'));
    if (!text) return undefined;
    try {
      const pkg = JSON.parse(text) as { scripts?: Record<string, string> };
      const test = pkg.scripts?.test;
      return test && test.trim() !== NPM_DEFAULT_TEST ? `${runner} test` : undefined;
    } catch {
      return undefined;
    }
  };
}

/** npm, pnpm, yarn and bun: installs, test scripts and builds. */
const packageManagers: CommandRule = (tool, args) => {
  if (tool === 'npx') {
    const runner = positional(args)[0];
    return runner && TEST_RUNNERS.has(runner)
      ? { environment: 'node', tool: 'npm', kind: 'test' }
      : undefined;
  }
  if (!['npm', 'pnpm', 'yarn', 'bun'].includes(tool)) return undefined;
  const bare = args[0] === undefined || args[0].startsWith('-');
  const sub = bare ? (tool === 'yarn' ? 'install' : '') : args[0]!;
  const rest = bare ? args : args.slice(1);
  if (['ci', 'install', 'i'].includes(sub)) {
    const global = rest.some((a) => a === '-g' || a === '--global');
    const named = positional(rest).length > 0;
    return { environment: 'node', tool, kind: global || named ? 'tool' : 'install' };
  }
  const script = sub === 'run' || sub === 'run-script' ? rest[0] : sub === 't' ? 'test' : sub;
  if (script && CHECK_SCRIPT.test(script))
    return { environment: 'node', tool, kind: 'test', lesser: 'checks' };
  if (script && BROWSER_SCRIPT.test(script))
    return { environment: 'node', tool, kind: 'test', lesser: 'browser' };
  if (script && TEST_SCRIPT.test(script)) return { environment: 'node', tool, kind: 'test' };
  // `pnpm vitest`, `yarn jest`, `pnpm exec vitest`, `npm exec mocha`: a test runner itself
  const runner = sub === 'exec' ? positional(rest)[0] : sub;
  if (runner && TEST_RUNNERS.has(runner)) return { environment: 'node', tool, kind: 'test' };
  if (script === 'build') return { environment: 'node', tool, kind: 'build' };
  return undefined;
};

/** `package.json` projects with npm, pnpm, yarn or bun. */
export const node: EnvironmentKind<'node'> = {
  name: 'node',
  language: 'node',
  tieBreak: 1,
  files: {
    roles: {
      'package.json': 'manifest',
      'package-lock.json': 'lockfile',
      'npm-shrinkwrap.json': 'lockfile',
      'yarn.lock': 'lockfile',
      'pnpm-lock.yaml': 'lockfile',
      'bun.lock': 'lockfile',
      'bun.lockb': 'lockfile',
      'pnpm-workspace.yaml': 'support',
      '.yarnrc.yml': 'support',
      '.nvmrc': 'version',
      '.node-version': 'version',
    },
  },
  analyze: analyzeNode,
  commands: [packageManagers],
  toolWords: ['npm', 'npx', 'pnpm', 'yarn', 'bun'],
  toolNames: Object.keys(TOOL_NAMES),
  ci: {
    setupActions: [
      { uses: /^actions\/setup-node@/, language: 'node', versionKeys: ['node-version'] },
    ],
    image: (repo, tag) => {
      if (!/^(?:node|nodejs)$/.test(repo)) return undefined;
      const version = tagVersion(tag);
      return version ? { language: 'node', version } : { language: 'node' };
    },
    travisKey: 'node_js',
  },
  defaultCheck: { command: `node -e "process.stdout.write('OK')"`, expected_output: 'OK' },
  planner: {
    description: 'Node.js with npm',
    selectedBy: '`package.json`',
  },
  aliases: ['nodejs', 'node.js', 'javascript', 'typescript', 'npm'],
  testDetectors: (packageManager) => [nodeTest(packageManager)],
  testGuessRank: 0,
  registryHosts: nodeRegistryHosts,
  signatures: {
    fatal: [
      sig(
        'out-of-memory',
        'node',
        /JavaScript heap out of memory|Allocation failed - process out of memory/,
      ),
    ],
    overrides: [sig('unknown-package', 'npm', /\bENOTCACHED\b/, 'envHint.npmOffline')],
    retryable: [
      sig(
        'lock',
        'npm',
        /_cacache[\s\S]{0,200}\b(?:EEXIST|ENOTEMPTY)\b|\b(?:EEXIST|ENOTEMPTY)\b[\s\S]{0,200}_cacache|\.lock' (?:already )?exists/,
      ),
      sig('lock', 'yarn', /Waiting for the other yarn instance to finish/),
      sig('server-error', 'npm', /npm (?:ERR!|error) code E5\d\d\b|ERR_PNPM_FETCH_5\d\d/),
      sig(
        'network',
        'node',
        /\b(?:ECONNRESET|ETIMEDOUT|ESOCKETTIMEDOUT|EAI_AGAIN|ENOTFOUND|ECONNREFUSED|ENETUNREACH|EHOSTUNREACH|EPIPE)\b/,
      ),
      sig(
        'network',
        'npm',
        /This is a problem related to network connectivity|network aborted|socket hang up/,
      ),
      sig('network', 'yarn', /There appears to be trouble with your network connection/),
    ],
    fixable: [
      sig(
        'lockfile-mismatch',
        'npm',
        /`npm ci` can only install packages when your package\.json and package-lock\.json|can only install with an existing package-lock\.json/,
        'envHint.npmCi',
      ),
      sig(
        'lockfile-mismatch',
        'pnpm',
        /ERR_PNPM_OUTDATED_LOCKFILE|ERR_PNPM_FROZEN_LOCKFILE_WITH_OUTDATED_LOCKFILE|ERR_PNPM_NO_LOCKFILE|ERR_PNPM_LOCKFILE_BREAKING_CHANGE/,
        'envHint.pnpmFrozen',
      ),
      sig(
        'lockfile-mismatch',
        'yarn',
        /Your lockfile needs to be updated, but yarn was run with `--frozen-lockfile`|YN0028|The lockfile would have been modified/,
      ),
      sig(
        'version-conflict',
        'npm',
        /\bERESOLVE\b|Could not resolve dependency:|Conflicting peer dependency/,
      ),
      sig(
        'version-conflict',
        'npm',
        /\bETARGET\b|No matching version found for|ERR_PNPM_NO_MATCHING_VERSION/,
        'envHint.versionMissing',
      ),
      sig('version-conflict', 'pnpm', /ERR_PNPM_PEER_DEP_ISSUES|ERR_PNPM_UNSUPPORTED_ENGINE/),
      sig(
        'unknown-package',
        'npm',
        /npm (?:ERR!|error) (?:code E404|404 Not Found)|ERR_PNPM_FETCH_404|is not in the npm registry|Couldn't find package "[^"]+" on the "npm" registry/,
      ),
      sig('toolchain', 'npm', /\bEBADENGINE\b|Unsupported engine/),
      sig(
        'toolchain',
        'corepack',
        /No compatible signature found in package metadata|Usage Error: This project is configured to use|corepack: command not found/,
      ),
      sig('config-syntax', 'npm', /\bEJSONPARSE\b|Failed to parse JSON data/),
      sig(
        'missing-file',
        'npm',
        /\bENOENT\b|Could not read package\.json|does not contain a package\.json/,
      ),
    ],
  },
  job: {
    imageDescription: 'Image for the `node` environment and for the planning job.',
    cacheDirs: ['npm', 'yarn', 'pnpm'],
    variables: (dir) => ({
      npm_config_cache: dir('npm'),
      YARN_CACHE_FOLDER: dir('yarn'),
      npm_config_store_dir: dir('pnpm'),
    }),
  },
};
