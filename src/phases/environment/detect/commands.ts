import { parse as parseShell } from 'shell-quote';
import type { EnvironmentName } from '../../../core/environment.ts';

/**
 * Commands found in CI configuration, task runners and docs, recognised by
 * the tool they run. Only the words are looked at; nothing is executed.
 */
export type CommandKind = 'install' | 'test' | 'build' | 'tool';

export interface Recognized {
  /** The environment the tool belongs to; undefined for `make`/`just` targets. */
  environment: EnvironmentName | undefined;
  /** `pip`, `uv`, `poetry`, `pdm`, `pipenv`, `conda`, `tox`, `npm`, `pnpm`, `yarn`, `bun`, `maven`, `gradle`, `go`, `pytest`, `nox`, `hatch`, `make`, `just`. */
  tool: string;
  kind: CommandKind;
  /**
   * A `test` that ranks below the others: it only checks without running
   * tests (a type check, a lint), or it needs a browser (browser and e2e
   * suites), which the agent's environment does not have.
   */
  lesser?: 'checks' | 'browser';
  /** The words after the tool (and after `-m pip`, `uv pip` …). */
  args: string[];
  /** The command as a line, normalised (`python -m pip` → `pip`). */
  line: string;
}

const REDIRECT = /^(?:>|>>|<|>&|<&|&>|>\||<<<?)$/;
const SPLIT = new Set(['&&', '||', ';', '|', '&', ';;', '|&']);

/** The simple commands of one shell line: split on `&&`, `;`, `|`; redirections and comments dropped. */
export function splitCommands(line: string): string[][] {
  // GitHub/GitLab expressions and make variables are kept as plain words
  const text = line
    .replace(/\$\{\{\s*([^}]*?)\s*\}\}/g, (_m, e: string) => `EXPR(${e.replace(/\s+/g, '')})`)
    .replace(/\$[({](\w+)[)}]/g, (_m, name: string) => makeVariable(name));
  let tokens: ReturnType<typeof parseShell>;
  try {
    tokens = parseShell(text, (key) => `$${key}`);
  } catch {
    return [];
  }
  const commands: string[][] = [[]];
  let skipNext = false;
  for (const token of tokens) {
    const current = commands[commands.length - 1]!;
    if (typeof token === 'string') {
      if (skipNext) skipNext = false;
      else current.push(token);
      continue;
    }
    if ('comment' in token) break;
    if (!('op' in token)) continue;
    if (token.op === 'glob') {
      current.push(token.pattern);
    } else if (SPLIT.has(token.op)) {
      commands.push([]);
    } else if (REDIRECT.test(token.op)) {
      if (/^\d$/.test(current[current.length - 1] ?? '')) current.pop();
      skipNext = true;
    }
  }
  return commands.filter((c) => c.length > 0);
}

/** `$(PYTHON)` → `python`, `${PIP}` → `pip`: the usual names of tools in Makefiles. */
function makeVariable(name: string): string {
  const lower = name.toLowerCase();
  if (/^python\d?$|^py$/.test(lower)) return 'python';
  if (/^pip\d?$/.test(lower)) return 'pip';
  if (['npm', 'pnpm', 'yarn', 'go', 'mvn', 'uv', 'poetry'].includes(lower)) return lower;
  return `$${name}`;
}

/** Drops `VAR=value`, `sudo`, `env`, `time`, `exec`, `sh`/`bash` before a script, and `python -m`. */
function unwrap(words: string[]): string[] {
  let rest = [...words];
  for (;;) {
    const [first, second] = rest;
    if (first === undefined) return rest;
    if (
      /^[A-Za-z_]\w*=/.test(first) ||
      ['sudo', 'env', 'time', 'exec', 'command'].includes(first)
    ) {
      rest = rest.slice(1);
    } else if ((first === 'sh' || first === 'bash') && second && !second.startsWith('-')) {
      rest = rest.slice(1);
    } else if (/^(?:python[\d.]*|py|\$python)$/.test(first) && second === '-m' && rest[2]) {
      rest = rest.slice(2);
    } else {
      return rest;
    }
  }
}

const baseName = (word: string) =>
  word.slice(word.lastIndexOf('/') + 1).replace(/\.(?:bat|cmd|exe)$/, '');
/** The words of a command that are not options. */
export const positional = (args: string[]) => args.filter((a) => !a.startsWith('-'));

/** Recognises one environment's tool: the command's base name and the words after it. */
export type CommandRule = (
  tool: string,
  args: string[],
) => Omit<Recognized, 'line' | 'args'> | undefined;

/** `make test`, `just check`: a task runner's test target, of no environment. */
const TASK_RUNNER_TEST: CommandRule = (tool, args) => {
  if (tool !== 'make' && tool !== 'just') return undefined;
  const target = positional(args)[0];
  return target && /test|check/.test(target)
    ? { environment: undefined, tool, kind: 'test' }
    : undefined;
};

/** The tool a simple command runs, or undefined for anything else (`echo`, `cd`, `git` …). */
export function recognize(words: string[], rules: readonly CommandRule[]): Recognized | undefined {
  let rest = unwrap(words);
  // `uv run pytest`, `poetry run pytest`, `pipenv run`, `pdm run`: the command inside
  while (
    ['uv', 'poetry', 'pipenv', 'pdm'].includes(rest[0] ?? '') &&
    rest[1] === 'run' &&
    rest[2]
  ) {
    rest = unwrap(rest.slice(2));
  }
  const [first, ...args] = rest;
  if (first === undefined) return undefined;
  const tool = baseName(first);
  for (const rule of [...rules, TASK_RUNNER_TEST]) {
    const found = rule(tool, args);
    if (found) {
      // `uv pip install …` is read as `pip install …`
      const kept = found.tool === 'pip' && tool === 'uv' ? args.slice(1) : args;
      const name = found.tool === 'pip' ? 'pip' : first;
      return { ...found, args: kept, line: [name, ...kept].join(' ') };
    }
  }
  return undefined;
}
