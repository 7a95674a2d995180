import { positional, type CommandKind, type CommandRule } from '../../detect/commands.ts';

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

/** Scripts of `hatch run` that build, lint or publish rather than test. */
const HATCH_NOT_TESTS =
  /^(?:docs?|lint|fmt|format|style|typing|types|mypy|build|release|publish|clean|serve)$/i;

/**
 * `hatch run [+opt…] [env:]script …`: Hatch's task runner; a script that is
 * not a docs, lint, type, build or release one runs the project's checks.
 */
function hatchRunsChecks(args: string[]): boolean {
  const script = args.slice(1).find((a) => !a.startsWith('+') && !a.startsWith('-'));
  if (!script) return false;
  const [env, name = env] = script.split(':');
  return !HATCH_NOT_TESTS.test(name!) && !HATCH_NOT_TESTS.test(env!);
}

/** pip, uv, poetry, pdm, pipenv and the test runners pytest, tox, nox and hatch. */
export const PYTHON_COMMANDS: readonly CommandRule[] = [
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
    if (!Object.hasOwn(installs, tool)) return undefined;
    if (installs[tool]!.includes(args[0] ?? '')) {
      const named = tool === 'pipenv' && positional(args.slice(1)).length > 0;
      return { environment: 'python', tool, kind: named ? 'tool' : 'install' };
    }
    return undefined;
  },
  (tool, args) => {
    if (tool === 'pytest' || tool === 'py.test')
      return { environment: 'python', tool: 'pytest', kind: 'test' };
    if (tool === 'tox' || tool === 'nox') return { environment: 'python', tool, kind: 'test' };
    if (tool === 'hatch' && (args[0] === 'test' || (args[0] === 'run' && hatchRunsChecks(args))))
      return { environment: 'python', tool, kind: 'test' };
    return undefined;
  },
];
