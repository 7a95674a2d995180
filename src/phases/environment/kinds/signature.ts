/**
 * The shape of an install-failure signature: a known failure text of a tool
 * a setup command runs, and what to do about it. Each environment declares
 * its tools' signatures in its folder; `signatures.ts` adds the tools every
 * environment shares (the shell, the system, apt, git, HTTP) and orders them.
 */
import type { MessageKey } from '../../../messages/en.ts';

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
export type FatalKind =
  'out-of-memory' | 'disk-full' | 'killed' | 'security' | 'container' | 'unreachable-host';
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

export const sig = (
  kind: FailureKind,
  tool: string,
  pattern: RegExp,
  hint?: EnvHintKey,
): Signature => (hint ? { kind, tool, pattern, hint } : { kind, tool, pattern });
