import { parse } from 'shell-quote';
import type { CommandRequest, CommandResult, Shell } from '../core/shell-port.ts';
import { hardeningSettings } from './git.ts';
import { shellLine } from './quote.ts';

/**
 * A shell that runs git and nothing else: the backstop for a
 * checkout whose own code must not run (a fork's merge request). The agent's
 * own git calls (src/shell/git.ts: `exec git …`, each word quoted) go
 * through; any other command line — a setup or test command, a script, git
 * followed by `;`, `&&`, `$(…)` or a variable, git with an alias, a pager
 * or an option that starts a program — is answered as refused, without
 * starting a process. git itself runs no code of the checkout here: hooks
 * and filters come from configuration, which a checkout cannot bring.
 */
export function gitOnlyShell(inner: Shell, reason: string): Shell {
  return {
    run(request: CommandRequest): Promise<CommandResult> {
      if (isPlainGit(request.command)) return inner.run(request);
      return Promise.resolve(refused(request.command, reason));
    },
  };
}

/** The git commands mr-agent runs (delivery, review, verification, detection, the CI checkout). */
const SUBCOMMANDS = new Set([
  'add',
  'checkout',
  'commit',
  'diff',
  'fetch',
  'ls-files',
  'ls-remote',
  'push',
  'rebase',
  'remote',
  'reset',
  'rev-parse',
  'show',
  'status',
]);

/**
 * The `-c` settings src/shell/git.ts passes (its hardening, exactly, and the
 * commit identity); anything else (an alias, a pager) could run a program.
 */
const HARDENING = new Set(hardeningSettings(true));
const IDENTITY = /^user\.(name|email)=.*$/s;
const isOwnSetting = (setting: string) => HARDENING.has(setting) || IDENTITY.test(setting);

/** Options with which git itself starts a program. */
const RUNS_A_PROGRAM = /^(--upload-pack|--receive-pack|--exec|-x$|--exec-path)/;

/**
 * One simple `git …` (or `exec git …`) command whose words quote back to
 * exactly this line: only mr-agent's `-c` settings, one of its subcommands,
 * and no option with which git starts a program.
 */
export function isPlainGit(command: string): boolean {
  let words: ReturnType<typeof parse>;
  try {
    words = parse(command, (name) => `$${name}`);
  } catch {
    return false;
  }
  if (!words.every((word): word is string => typeof word === 'string')) return false;
  if (shellLine(words) !== command) return false;
  let i = words[0] === 'exec' ? 1 : 0;
  if (words[i++] !== 'git') return false;
  while (words[i] === '-c') {
    if (!isOwnSetting(words[i + 1] ?? '')) return false;
    i += 2;
  }
  if (!SUBCOMMANDS.has(words[i] ?? '')) return false;
  return !words.slice(i + 1).some((word) => RUNS_A_PROGRAM.test(word));
}

function refused(command: string, reason: string): CommandResult {
  const message = `not run: ${reason}`;
  return {
    command,
    exitCode: undefined,
    stdout: '',
    stderr: message,
    output: message,
    durationMs: 0,
    timedOut: false,
    cancelled: false,
    outputTruncated: false,
    signal: undefined,
    failed: true,
    spawnError: message,
  };
}
