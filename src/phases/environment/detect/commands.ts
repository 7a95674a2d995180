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
const positional = (args: string[]) => args.filter((a) => !a.startsWith('-'));

/** `pip install -r x.txt`, `-e .[test]`, `.`: the project or its requirements; named packages are tools. */
function pipKind(args: string[]): CommandKind {
  return args.some(
    (a, i) =>
      /^(?:-r|--requirement|-e|--editable|-c)$/.test(a) ||
      /^\.(?:$|\[|\/)/.test(a) ||
      (i > 0 && /^(?:-r|-e)/.test(a)),
  )
    ? 'install'
    : 'tool';
}

type Rule = (tool: string, args: string[]) => Omit<Recognized, 'line' | 'args'> | undefined;

const TEST_SCRIPT = /^test(?::[\w:-]+)?$|^(?:unit|ci)(?::?test)?$/;

const RULES: Rule[] = [
  (tool, args) => {
    if (!/^pip(?:\d(?:\.\d+)?)?$/.test(tool) || args[0] !== 'install') return undefined;
    return { environment: 'python', tool: 'pip', kind: pipKind(args.slice(1)) };
  },
  (tool, args) => {
    if (tool !== 'uv') return undefined;
    if (args[0] === 'sync') return { environment: 'python', tool: 'uv', kind: 'install' };
    if (args[0] === 'pip' && args[1] === 'install')
      return { environment: 'python', tool: 'pip', kind: pipKind(args.slice(2)) };
    return undefined;
  },
  (tool, args) => {
    const installs: Record<string, string[]> = {
      poetry: ['install', 'sync'],
      pdm: ['install', 'sync'],
      pipenv: ['install', 'sync'],
    };
    if (!installs[tool]) return undefined;
    if (installs[tool].includes(args[0] ?? '')) {
      const named = tool === 'pipenv' && positional(args.slice(1)).length > 0;
      return { environment: 'python', tool, kind: named ? 'tool' : 'install' };
    }
    return undefined;
  },
  (tool, args) => {
    if (!['conda', 'mamba', 'micromamba'].includes(tool)) return undefined;
    const file = args.some((a) => /^(?:-f|--file)(?:=|$)/.test(a));
    const envFile = args[0] === 'env' && ['create', 'update'].includes(args[1] ?? '');
    if (envFile || (['create', 'update', 'install'].includes(args[0] ?? '') && file))
      return { environment: 'miniforge', tool: 'conda', kind: 'install' };
    return { environment: 'miniforge', tool: 'conda', kind: 'tool' };
  },
  (tool, args) => {
    if (tool === 'pytest' || tool === 'py.test')
      return { environment: 'python', tool: 'pytest', kind: 'test' };
    if (tool === 'tox' || tool === 'nox') return { environment: 'python', tool, kind: 'test' };
    if (
      tool === 'hatch' &&
      (args[0] === 'test' || (args[0] === 'run' && /test/.test(args[1] ?? '')))
    )
      return { environment: 'python', tool, kind: 'test' };
    return undefined;
  },
  (tool, args) => {
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
    if (script && TEST_SCRIPT.test(script)) return { environment: 'node', tool, kind: 'test' };
    if (script === 'build') return { environment: 'node', tool, kind: 'build' };
    return undefined;
  },
  (tool, args) => {
    if (!['mvn', 'mvnw', 'mvnd'].includes(tool)) return undefined;
    const goals = positional(args);
    const tests =
      goals.some((g) => /^(?:test|verify|integration-test)$/.test(g)) ||
      (goals.some((g) => /^(?:install|package|deploy)$/.test(g)) &&
        !args.some((a) => /^-D(?:skipTests|maven\.test\.skip)(?:=true)?$/.test(a)));
    return goals.length > 0
      ? { environment: 'java', tool: 'maven', kind: tests ? 'test' : 'build' }
      : undefined;
  },
  (tool, args) => {
    if (tool !== 'gradle' && tool !== 'gradlew') return undefined;
    const tasks = positional(args).map((t) => t.replace(/^.*:/, ''));
    if (tasks.length === 0) return undefined;
    const tests = tasks.some((t) => /^(?:test|check|build|integrationTest)$/.test(t));
    return { environment: 'java', tool: 'gradle', kind: tests ? 'test' : 'build' };
  },
  (tool, args) => {
    if (tool !== 'go') return undefined;
    if (args[0] === 'test') return { environment: 'go', tool, kind: 'test' };
    if (args[0] === 'build' || args[0] === 'vet') return { environment: 'go', tool, kind: 'build' };
    if (args[0] === 'mod' && args[1] === 'download')
      return { environment: 'go', tool, kind: 'install' };
    return undefined;
  },
  (tool, args) => {
    if (tool !== 'make' && tool !== 'just') return undefined;
    const target = positional(args)[0];
    return target && /test|check/.test(target)
      ? { environment: undefined, tool, kind: 'test' }
      : undefined;
  },
];

/** The tool a simple command runs, or undefined for anything else (`echo`, `cd`, `git` …). */
export function recognize(words: string[]): Recognized | undefined {
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
  for (const rule of RULES) {
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
