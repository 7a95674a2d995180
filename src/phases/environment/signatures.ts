/**
 * Known failure texts of the tools setup commands run (pip, conda, npm, yarn,
 * pnpm, Maven, Gradle, Go, apt, git, the shell), by what to do about them.
 * Sources: shared/research/environment-and-parsing.md §3 and real runs (see
 * test/phases/environment/install-errors.ts). The tables are checked in
 * order; the first match decides.
 */
import type { MessageKey } from '../../messages/en.ts';

export type FailureClass = 'retryable' | 'fixable' | 'fatal';

export type RetryableKind = 'network' | 'server-error' | 'lock';
export type FixableKind =
  | 'unknown-package'
  | 'version-conflict'
  | 'lockfile-mismatch'
  | 'config-syntax'
  | 'toolchain'
  | 'missing-file'
  | 'command-not-found'
  | 'cached-failure'
  | 'timeout'
  | 'verification-mismatch'
  | 'unknown';
export type FatalKind = 'out-of-memory' | 'disk-full' | 'killed' | 'security' | 'container';
export type FailureKind = RetryableKind | FixableKind | FatalKind;

/** A hint of the message catalog: English in the prompt, the note's language in the note. */
export type EnvHintKey = Extract<MessageKey, `envHint.${string}`>;

export interface Signature {
  kind: FailureKind;
  tool: string;
  pattern: RegExp;
  /** Added to the regeneration prompt and the failure note. */
  hint?: EnvHintKey;
}

const sig = (kind: FailureKind, tool: string, pattern: RegExp, hint?: EnvHintKey): Signature =>
  hint ? { kind, tool, pattern, hint } : { kind, tool, pattern };

/** System resources and security: never retried, never regenerated. */
export const FATAL: readonly Signature[] = [
  sig('disk-full', 'system', /\bENOSPC\b|No space left on device|Disk quota exceeded/i),
  sig(
    'out-of-memory',
    'system',
    /Cannot allocate memory|\bENOMEM\b|Out of memory: Killed process/i,
  ),
  sig(
    'out-of-memory',
    'node',
    /JavaScript heap out of memory|Allocation failed - process out of memory/,
  ),
  sig('out-of-memory', 'java', /java\.lang\.OutOfMemoryError/),
  sig('out-of-memory', 'python', /^MemoryError\b/m),
  sig('out-of-memory', 'gradle', /Gradle build daemon disappeared unexpectedly/),
  sig('security', 'go', /SECURITY ERROR|checksum mismatch/, 'envHint.goChecksum'),
  sig(
    'container',
    'docker',
    /Cannot connect to the Docker daemon|OCI runtime (?:create|exec) failed/,
  ),
];

/** Failures a plain retry cannot fix even though they look like network errors. */
export const OVERRIDES: readonly Signature[] = [
  sig(
    'cached-failure',
    'maven',
    /was cached in the local repository, resolution will not be reattempted/,
    'envHint.mavenCached',
  ),
  sig('unknown-package', 'npm', /\bENOTCACHED\b/, 'envHint.npmOffline'),
];

export const RETRYABLE: readonly Signature[] = [
  // lock contention
  sig(
    'lock',
    'apt',
    /Could not get lock \/var\/lib\/dpkg|Unable to acquire the dpkg frontend lock|dpkg was interrupted/,
  ),
  sig(
    'lock',
    'gradle',
    /Timeout waiting to lock|It is currently in use by another Gradle instance/,
  ),
  sig('lock', 'git', /Unable to create '[^']*\.lock': File exists/),
  sig(
    'lock',
    'npm',
    /_cacache[\s\S]{0,200}\b(?:EEXIST|ENOTEMPTY)\b|\b(?:EEXIST|ENOTEMPTY)\b[\s\S]{0,200}_cacache|\.lock' (?:already )?exists/,
  ),
  sig('lock', 'yarn', /Waiting for the other yarn instance to finish/),
  sig('lock', 'conda', /CondaLockError|LOCKERROR|It looks like a conda process is already running/),
  sig(
    'lock',
    'pip',
    /another instance of pip is running|\[Errno 11\] Resource temporarily unavailable/,
  ),
  // temporary server errors
  sig(
    'server-error',
    'http',
    /\b50[0234] (?:Service Unavailable|Bad Gateway|Gateway Time-?out|Internal Server Error)\b/i,
  ),
  sig('server-error', 'maven', /Return code is: 5\d\d|status code:? 5\d\d|status: 5\d\d/),
  sig('server-error', 'npm', /npm (?:ERR!|error) code E5\d\d\b|ERR_PNPM_FETCH_5\d\d/),
  sig('server-error', 'conda', /CondaHTTPError: HTTP 5\d\d/),
  sig('server-error', 'http', /\b429 Too Many Requests\b|HTTP error 5\d\d|returned error: 5\d\d/i),
  sig('server-error', 'go', /reading https?:\/\/\S+: 5\d\d /),
  // network
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
  sig(
    'network',
    'pip',
    /NewConnectionError|ReadTimeoutError|ConnectTimeoutError|ProtocolError|Connection broken|IncompleteRead/,
  ),
  sig(
    'network',
    'conda',
    /CondaHTTPError: HTTP 000 CONNECTION FAILED|CondaSSLError|CondaConnectionError/,
  ),
  sig(
    'network',
    'go',
    /dial tcp [^\n]*(?:i\/o timeout|connection refused|no such host|network is unreachable)|TLS handshake timeout|net\/http: request canceled/,
  ),
  sig(
    'network',
    'system',
    /Temporary failure in name resolution|Name or service not known|Could not resolve host|Unknown host|Connection refused|Connection reset by peer|Connection timed out|Connect timed out|Read timed out|Network is unreachable|No route to host|unable to access '[^']+'/i,
  ),
];

export const FIXABLE: readonly Signature[] = [
  // lockfile out of sync with the manifest
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
    'lockfile-mismatch',
    'poetry',
    /pyproject\.toml changed significantly since poetry\.lock was last generated|poetry\.lock is not consistent with pyproject\.toml/,
  ),
  sig('lockfile-mismatch', 'pipenv', /Pipfile\.lock \([0-9a-f]+\) out of date/),
  sig('lockfile-mismatch', 'uv', /The lockfile at `uv\.lock` needs to be updated/),
  // versions that cannot be satisfied
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
    'version-conflict',
    'pip',
    /ResolutionImpossible|conflicting dependencies|Cannot install [^\n]* because these package versions have conflicting/,
  ),
  sig(
    'version-conflict',
    'conda',
    /UnsatisfiableError|LibMambaUnsatisfiableError|Solving environment: failed|Could not solve for environment specs/,
  ),
  sig('version-conflict', 'poetry', /SolverProblemError|version solving failed/),
  // the package does not exist (or is private)
  sig(
    'unknown-package',
    'npm',
    /npm (?:ERR!|error) (?:code E404|404 Not Found)|ERR_PNPM_FETCH_404|is not in the npm registry|Couldn't find package "[^"]+" on the "npm" registry/,
  ),
  sig(
    'unknown-package',
    'pip',
    /No matching distribution found for|Could not find a version that satisfies the requirement/,
    'envHint.pythonPackage',
  ),
  sig(
    'unknown-package',
    'conda',
    /PackagesNotFoundError|ResolvePackageNotFound|The following packages are not available from current channels/,
  ),
  sig(
    'unknown-package',
    'python',
    /ModuleNotFoundError: No module named|ImportError: No module named/,
  ),
  sig('unknown-package', 'maven', /Could not find artifact|Failure to find [\w.-]+:[\w.-]+/),
  sig('unknown-package', 'gradle', /Could not find [\w.-]+:[\w.-]+/),
  sig(
    'unknown-package',
    'go',
    /go: [^\n]*: (?:unknown revision|no matching versions for query|module [^\n]* not found|invalid version)|cannot find module providing package|404 Not Found/,
  ),
  // toolchain and runtime versions
  sig('toolchain', 'go', /requires go >= [\d.]+|go: updates to go\.mod needed|GOTOOLCHAIN=local/),
  sig('toolchain', 'npm', /\bEBADENGINE\b|Unsupported engine/),
  sig(
    'toolchain',
    'corepack',
    /No compatible signature found in package metadata|Usage Error: This project is configured to use|corepack: command not found/,
  ),
  sig(
    'toolchain',
    'pip',
    /requires a different Python|Requires-Python|externally-managed-environment|Package '[^']+' requires a different Python/,
  ),
  sig(
    'toolchain',
    'java',
    /invalid (?:source|target) release|release version \d+ not supported|Unsupported class file major version|No matching toolchains found|Cannot find a Java installation|has been compiled by a more recent version of the Java Runtime/,
  ),
  // manifests and configuration files that do not parse
  sig('config-syntax', 'npm', /\bEJSONPARSE\b|Failed to parse JSON data/),
  sig(
    'config-syntax',
    'pip',
    /Invalid requirement:|TOMLDecodeError|Invalid TOML|InvalidRequirement|error in [\w.-]+ setup command/,
  ),
  sig(
    'config-syntax',
    'yaml',
    /yaml\.(?:scanner|parser)\.\w+Error|YAMLException|CondaValueError: could not parse/,
  ),
  sig(
    'config-syntax',
    'maven',
    /Non-parseable POM|Malformed POM|The build could not read \d+ project/,
  ),
  sig(
    'config-syntax',
    'gradle',
    /Script compilation errors?|Could not compile (?:build|settings) file|A problem occurred evaluating (?:root )?project/,
  ),
  sig('config-syntax', 'go', /go: errors parsing go\.mod|go\.mod:\d+: /),
  // files and commands that are not there
  sig(
    'missing-file',
    'pip',
    /Could not open requirements file|does not appear to be a Python project|neither 'setup\.py' nor 'pyproject\.toml' found/,
  ),
  sig(
    'missing-file',
    'npm',
    /\bENOENT\b|Could not read package\.json|does not contain a package\.json/,
  ),
  sig('missing-file', 'conda', /EnvironmentFileNotFound|file not found/),
  sig(
    'missing-file',
    'maven',
    /there is no POM in this directory|The goal you specified requires a project to execute but there is no POM/,
  ),
  sig('missing-file', 'go', /go\.mod file not found|cannot find main module/),
  sig(
    'command-not-found',
    'shell',
    /(?:^|\n)(?:sh|bash|\/bin\/sh)(?:: \d+)?: [^\n]*(?:not found|command not found)|: command not found\b/,
  ),
  sig('missing-file', 'system', /No such file or directory/),
];
