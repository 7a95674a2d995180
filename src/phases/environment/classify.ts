import { t } from '../../messages/catalog.ts';
import {
  FATAL,
  FIXABLE,
  OVERRIDES,
  RETRYABLE,
  type FailureClass,
  type FailureKind,
  type RetryableKind,
  type EnvHintKey,
  type Signature,
} from './signatures.ts';
import { unresolvedHost } from './fetch-hosts.ts';

export interface Classification {
  class: FailureClass;
  kind: FailureKind;
  /** The tool whose signature matched (`exit-code` when only the exit code told). */
  tool: string;
  /** The output line that matched, for the log, the prompt and the note. */
  evidence: string;
  /** What to do, in English (the regeneration prompt, the log). */
  hint?: string;
  /** The hint's catalog key: the failure note says it in its own language. */
  hintKey?: EnvHintKey | 'envHint.oomKiller';
  /** The values the hint's text names (the host that did not resolve). */
  hintParams?: Record<string, string>;
}

/** What classification knows of the command beyond its output. */
export interface ClassifyContext {
  /**
   * The hosts the command fetches from by configuration (`fetchHosts`): a
   * failed lookup of one of them is the network; of any other host, a host
   * the runner cannot reach. Absent: every failed lookup is the network.
   */
  fetchHosts?: readonly string[];
}

/** What classification looks at: the command result's relevant parts. */
export interface FailedRun {
  exitCode: number | undefined;
  signal?: string | undefined;
  timedOut?: boolean;
  output: string;
  spawnError?: string | undefined;
}

/** Waits before each retry: the length is the number of retries. */
export const RETRY_WAITS_MS: Readonly<Record<RetryableKind, readonly number[]>> = {
  network: [5_000, 10_000, 20_000],
  'server-error': [10_000, 10_000, 10_000],
  lock: [3_000, 3_000, 3_000, 3_000, 3_000],
};

/** Only the end of a long output is searched: that is where tools print their error. */
const SEARCHED_CHARS = 64 * 1024;

function classOf(kind: FailureKind): FailureClass {
  if (kind === 'network' || kind === 'server-error' || kind === 'lock') return 'retryable';
  if (
    ['out-of-memory', 'disk-full', 'killed', 'security', 'container', 'unreachable-host'].includes(
      kind,
    )
  )
    return 'fatal';
  return 'fixable';
}

function lineAround(text: string, index: number): string {
  const start = text.lastIndexOf('\n', index) + 1;
  const end = text.indexOf('\n', index);
  return text
    .slice(start, end < 0 ? undefined : end)
    .trim()
    .slice(0, 300);
}

function match(table: readonly Signature[], text: string): Classification | undefined {
  for (const signature of table) {
    const found = signature.pattern.exec(text);
    if (!found) continue;
    const result: Classification = {
      class: classOf(signature.kind),
      kind: signature.kind,
      tool: signature.tool,
      evidence: lineAround(text, found.index + (found[0].startsWith('\n') ? 1 : 0)),
    };
    if (signature.hint) {
      result.hint = t('en', signature.hint);
      result.hintKey = signature.hint;
    }
    return result;
  }
  return undefined;
}

function byExitCode(run: FailedRun, text: string): Classification {
  const last = text.trim().split('\n').pop()?.trim().slice(0, 300) ?? '';
  if (run.exitCode === 137 || run.signal === 'SIGKILL')
    return {
      class: 'fatal',
      kind: 'killed',
      tool: 'exit-code',
      evidence: last || 'killed (exit 137, SIGKILL)',
      hint: t('en', 'envHint.oomKiller'),
      hintKey: 'envHint.oomKiller',
    };
  if (run.exitCode === 127)
    return {
      class: 'fixable',
      kind: 'command-not-found',
      tool: 'exit-code',
      evidence: last || 'exit 127: command not found',
    };
  return {
    class: 'fixable',
    kind: 'unknown',
    tool: 'exit-code',
    evidence: last || `exit ${String(run.exitCode)}`,
  };
}

/** A dependency host that did not resolve, when it is none setup fetches from by configuration. */
function unreachable(text: string, context: ClassifyContext): Classification | undefined {
  if (!context.fetchHosts) return undefined;
  const found = unresolvedHost(text, context.fetchHosts);
  if (!found) return undefined;
  const hintParams = { host: found.host };
  return {
    class: 'fatal',
    kind: 'unreachable-host',
    tool: 'dns',
    evidence: lineAround(text, found.index),
    hint: t('en', 'envHint.unreachableHost', hintParams),
    hintKey: 'envHint.unreachableHost',
    hintParams,
  };
}

/**
 * Classifies a failed setup or verification command: system
 * resources and security first (fatal), then failures a retry cannot fix
 * (Maven's cached failure), then a dependency host the runner cannot
 * resolve (fatal: a retry only waits), then lock contention, temporary
 * server errors and network errors (retryable), then the fixable signatures, and last the
 * exit code alone (127 command not found, anything else fixable). Exit 137 or
 * SIGKILL is fatal before any signature is looked at. A command the
 * agent stopped at its timeout is fixable (`timeout`): the model may choose a
 * lighter command.
 */
export function classifyFailure(run: FailedRun, context: ClassifyContext = {}): Classification {
  const text = `${run.spawnError ?? ''}\n${run.output.slice(-SEARCHED_CHARS)}`;
  if (run.timedOut) {
    return {
      class: 'fixable',
      kind: 'timeout',
      tool: 'timeout',
      evidence: 'the command ran past environment.setup_timeout_sec and was stopped',
    };
  }
  // killed from outside (not by our timeout): the out-of-memory killer, whatever the output said before
  if (run.exitCode === 137 || run.signal === 'SIGKILL') return byExitCode(run, text);
  return (
    match(FATAL, text) ??
    match(OVERRIDES, text) ??
    unreachable(text, context) ??
    match(RETRYABLE, text) ??
    match(FIXABLE, text) ??
    byExitCode(run, text)
  );
}
