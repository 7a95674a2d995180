import path from 'node:path';
import { tagVersion } from '../../detect/ci-config.ts';
import { exists } from '../build-files.ts';
import type { EnvironmentKind, TestDetector } from '../kind.ts';
import { sig } from '../signature.ts';
import { analyzeGo, TOOL_NAMES } from './analyze.ts';

const goTest: TestDetector = async (dir) =>
  (await exists(path.join(dir, 'go.mod'))) ? 'go test ./...' : undefined;

/** Go modules and workspaces. */
export const go: EnvironmentKind<'go'> = {
  name: 'go',
  language: 'go',
  tieBreak: 3,
  files: {
    roles: {
      'go.mod': 'manifest',
      'go.work': 'manifest',
      'go.sum': 'lockfile',
      'go.work.sum': 'lockfile',
    },
  },
  analyze: analyzeGo,
  commands: [
    (tool, args) => {
      if (tool !== 'go') return undefined;
      if (args[0] === 'test') return { environment: 'go', tool, kind: 'test' };
      if (args[0] === 'build' || args[0] === 'vet')
        return { environment: 'go', tool, kind: 'build' };
      if (args[0] === 'mod' && args[1] === 'download')
        return { environment: 'go', tool, kind: 'install' };
      return undefined;
    },
  ],
  toolWords: ['go'],
  toolNames: Object.keys(TOOL_NAMES),
  ci: {
    setupActions: [{ uses: /^actions\/setup-go@/, language: 'go', versionKeys: ['go-version'] }],
    image: (repo, tag) => {
      if (!/^(?:golang|go)$/.test(repo)) return undefined;
      const version = tagVersion(tag);
      return version ? { language: 'go', version } : { language: 'go' };
    },
    travisKey: 'go',
  },
  defaultCheck: { command: 'go version > /dev/null && echo OK', expected_output: 'OK' },
  planner: {
    description: 'Go with the go module system',
    selectedBy: '`go.mod`',
  },
  aliases: ['golang'],
  testDetectors: () => [goTest],
  testGuessRank: 2,
  signatures: {
    fatal: [sig('security', 'go', /SECURITY ERROR|checksum mismatch/, 'envHint.goChecksum')],
    retryable: [
      sig('server-error', 'go', /reading https?:\/\/\S+: 5\d\d /),
      sig(
        'network',
        'go',
        /dial tcp [^\n]*(?:i\/o timeout|connection refused|no such host|network is unreachable)|TLS handshake timeout|net\/http: request canceled/,
      ),
    ],
    fixable: [
      sig(
        'unknown-package',
        'go',
        /go: [^\n]*: (?:unknown revision|no matching versions for query|module [^\n]* not found|invalid version)|cannot find module providing package|404 Not Found/,
      ),
      sig(
        'toolchain',
        'go',
        /requires go >= [\d.]+|go: updates to go\.mod needed|GOTOOLCHAIN=local/,
      ),
      sig('config-syntax', 'go', /go: errors parsing go\.mod|go\.mod:\d+: /),
      sig('missing-file', 'go', /go\.mod file not found|cannot find main module/),
    ],
  },
  job: {
    cacheDirs: ['go/mod', 'go/build'],
    variables: (dir) => ({ GOMODCACHE: dir('go/mod'), GOCACHE: dir('go/build') }),
  },
};
