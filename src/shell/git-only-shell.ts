import { parse } from 'shell-quote';
import type { CommandRequest, CommandResult, Shell } from '../core/shell-port.ts';
import { shellLine } from './quote.ts';

/**
 * A shell that runs git and nothing else (issue 19 §1): the backstop for a
 * checkout whose own code must not run (a fork's merge request). The agent's
 * own git calls (src/shell/git.ts: `exec git …`, each word quoted) go
 * through; any other command line — a setup or test command, a script, git
 * followed by `;`, `&&`, `$(…)` or a variable — is answered as refused,
 * without starting a process. git itself runs no code of the checkout here:
 * hooks and filters come from configuration, which a checkout cannot bring.
 */
export function gitOnlyShell(inner: Shell, reason: string): Shell {
  return {
    run(request: CommandRequest): Promise<CommandResult> {
      if (isPlainGit(request.command)) return inner.run(request);
      return Promise.resolve(refused(request.command, reason));
    },
  };
}

/** One simple `git …` (or `exec git …`) command whose words quote back to exactly this line. */
export function isPlainGit(command: string): boolean {
  let words: ReturnType<typeof parse>;
  try {
    words = parse(command, (name) => `$${name}`);
  } catch {
    return false;
  }
  if (!words.every((word): word is string => typeof word === 'string')) return false;
  const program = words[0] === 'exec' ? words[1] : words[0];
  return program === 'git' && shellLine(words) === command;
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
