/**
 * Known failure texts of the tools setup commands run, by what to do about
 * them: each environment's tools (pip, conda, npm, Maven, Go …) from its
 * folder, and here the tools every environment shares (the system, apt, git,
 * HTTP, YAML, the shell, the container runtime). Sources:
 * shared/research/environment-and-parsing.md and real runs (see
 * test/phases/environment/install-errors.ts). The tables are checked in
 * order; the first match decides. Within a table, failures are grouped by
 * kind in the order below (locks before server errors before the network);
 * within a group the shared specific signatures come first, then the
 * environments' in registry order, then the shared catch-alls; a missing
 * command or file is the fixable table's last resort.
 */
import type { KindSignatures } from './kinds/kind.ts';
import { sig, type FailureKind, type Signature } from './kinds/signature.ts';
import { ENVIRONMENT_KINDS } from './registry.ts';

export type {
  EnvHintKey,
  FailureClass,
  FailureKind,
  FatalKind,
  FixableKind,
  RetryableKind,
  Signature,
} from './kinds/signature.ts';

/** Shared signatures that go before the environments' of the same kind. */
const FIRST: Required<KindSignatures> = {
  fatal: [
    sig('disk-full', 'system', /\bENOSPC\b|No space left on device|Disk quota exceeded/i),
    sig(
      'out-of-memory',
      'system',
      /Cannot allocate memory|\bENOMEM\b|Out of memory: Killed process/i,
    ),
  ],
  overrides: [],
  retryable: [
    sig(
      'lock',
      'apt',
      /Could not get lock \/var\/lib\/dpkg|Unable to acquire the dpkg frontend lock|dpkg was interrupted/,
    ),
    sig('lock', 'git', /Unable to create '[^']*\.lock': File exists/),
    sig(
      'server-error',
      'http',
      /\b50[0234] (?:Service Unavailable|Bad Gateway|Gateway Time-?out|Internal Server Error)\b/i,
    ),
  ],
  fixable: [],
};

/** Shared catch-alls that go after the environments' of the same kind. */
const LAST: Required<KindSignatures> = {
  fatal: [
    sig(
      'container',
      'docker',
      /Cannot connect to the Docker daemon|OCI runtime (?:create|exec) failed/,
    ),
  ],
  overrides: [],
  retryable: [
    sig(
      'server-error',
      'http',
      /\b429 Too Many Requests\b|HTTP error 5\d\d|returned error: 5\d\d/i,
    ),
    sig(
      'network',
      'system',
      /Temporary failure in name resolution|Name or service not known|Could not resolve host|Unknown host|Connection refused|Connection reset by peer|Connection timed out|Connect timed out|Read timed out|Network is unreachable|No route to host|unable to access '[^']+'/i,
    ),
  ],
  fixable: [
    sig(
      'config-syntax',
      'yaml',
      /yaml\.(?:scanner|parser)\.\w+Error|YAMLException|CondaValueError: could not parse/,
    ),
  ],
};

/** The last resorts of the fixable table, after every group: a missing command, then any missing file. */
const FINAL: readonly Signature[] = [
  sig(
    'command-not-found',
    'shell',
    /(?:^|\n)(?:sh|bash|\/bin\/sh)(?:: \d+)?: [^\n]*(?:not found|command not found)|: command not found\b/,
  ),
  sig('missing-file', 'system', /No such file or directory/),
];

/** The order of failure kinds within a table. */
const KIND_ORDER: readonly FailureKind[] = [
  'disk-full',
  'out-of-memory',
  'security',
  'container',
  'cached-failure',
  'lock',
  'server-error',
  'network',
  'lockfile-mismatch',
  'version-conflict',
  'unknown-package',
  'toolchain',
  'config-syntax',
  'missing-file',
];

function table(name: keyof KindSignatures): readonly Signature[] {
  const kinds = ENVIRONMENT_KINDS.flatMap((k) => k.signatures?.[name] ?? []);
  const rank = (s: Signature) => {
    const at = KIND_ORDER.indexOf(s.kind);
    return at < 0 ? KIND_ORDER.length : at;
  };
  const all = [
    ...FIRST[name].map((s) => ({ s, place: 0 })),
    ...kinds.map((s) => ({ s, place: 1 })),
    ...LAST[name].map((s) => ({ s, place: 2 })),
  ];
  // stable: within a kind, shared specific ones, the environments', shared catch-alls
  return all.sort((a, b) => rank(a.s) - rank(b.s) || a.place - b.place).map((e) => e.s);
}

/** System resources and security: never retried, never regenerated. */
export const FATAL: readonly Signature[] = table('fatal');
/** Failures a plain retry cannot fix even though they look like network errors. */
export const OVERRIDES: readonly Signature[] = table('overrides');
export const RETRYABLE: readonly Signature[] = table('retryable');
export const FIXABLE: readonly Signature[] = [...table('fixable'), ...FINAL];
