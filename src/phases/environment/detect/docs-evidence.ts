import { parse as parseToml } from 'smol-toml';
import type { EnvironmentName, VersionPin } from '../../../core/environment.ts';
import { SECONDARY, type Collector, type EvidenceSource } from './evidence-types.ts';

/**
 * Evidence from task runners (tox, nox, Makefile, justfile, mise) and from
 * the README/CONTRIBUTING: the shell lines they hold, with file and line.
 */

/** Headings under which README commands are how the maintainers install, build and test. */
const INSTALL_HEADING =
  /install|setup|set up|getting started|quick ?start|develop|contribut|build|test|running|requirements/i;
const SHELL_FENCE = /^(?:|sh|bash|shell|console|zsh|shell-session|sh-session|text|terminal|cmd)$/i;

interface Section {
  heading: string;
  /** Code blocks seen so far: commands of one block are run together, of two blocks may be alternatives. */
  block: number;
}

function isShellLine(line: string): boolean {
  return /^[\w./$-]/.test(line) && !/^(?:[A-Z][a-z]+\s){2}/.test(line);
}

/** A sentence that states what the build needs: "You need JDK 21 or 25", "requires Java 17+". */
const NEEDS =
  /\b(?:need|needs|require|requires|required|install|build with|use|using|supported)\b/i;
const JDK_NAMED =
  /\b(?:Open)?(?:JDK|Java)\s*(\d{1,2})\b((?:\s*(?:\+|or|and|,|\/)\s*(?:\d{1,2}\b|later|newer|higher|above))*)/g;

/**
 * The JDKs a README or CONTRIBUTING says the build needs (prose outside code
 * blocks): the lowest one named is the documented floor.
 */
function documentedJdk(file: string, line: string, index: number, collect: Collector): void {
  if (!NEEDS.test(line)) return;
  const versions: string[] = [];
  for (const match of line.matchAll(JDK_NAMED)) {
    versions.push(match[1]!, ...(match[2]!.match(/\d{1,2}/g) ?? []));
  }
  const majors = versions.map(Number).filter((v) => v >= 5 && v <= 40);
  if (majors.length === 0) return;
  collect.runtime({
    file,
    line: index + 1,
    text: line.trim(),
    language: 'java',
    environment: 'java',
    versions: majors.map(String),
    source: 'docs',
    secondary: false,
  });
}

/** Markdown fences and reStructuredText literal blocks of a README or CONTRIBUTING file. */
export function readDocs(file: string, text: string, collect: Collector): void {
  const lines = text.split(/\r?\n/);
  const section: Section = { heading: '', block: 0 };
  let fence: { marker: string; shell: boolean } | undefined;
  let rstIndent: number | undefined;
  const push = (raw: string, index: number) => {
    const line = raw.trim().replace(/^(?:\$|>|%|#\s*\$)\s+/, '');
    if (!line || !isShellLine(line)) return;
    const secondary = !INSTALL_HEADING.test(section.heading);
    collect.script(
      {
        file,
        line: index + 1,
        text: line,
        context: `${section.heading || 'top'} (block ${section.block})`,
        secondary,
      },
      'docs',
    );
  };
  for (let i = 0; i < lines.length; i += 1) {
    const raw = lines[i]!;
    if (fence) {
      if (raw.trim().startsWith(fence.marker)) fence = undefined;
      else if (fence.shell) push(raw, i);
      continue;
    }
    if (rstIndent !== undefined) {
      if (raw.trim() === '') continue;
      const indent = raw.length - raw.trimStart().length;
      if (indent > rstIndent) {
        push(raw, i);
        continue;
      }
      rstIndent = undefined;
    }
    const open = /^\s*(```+|~~~+)\s*([\w-]*)/.exec(raw);
    if (open) {
      fence = { marker: open[1]!, shell: SHELL_FENCE.test(open[2]!) };
      section.block += 1;
      continue;
    }
    const heading = /^#{1,6}\s+(.*)$/.exec(raw);
    if (heading) section.heading = heading[1]!.trim();
    else if (/^(?:=+|-+|~+|\^+)$/.test(raw.trim()) && lines[i - 1]?.trim())
      section.heading = lines[i - 1]!.trim();
    else documentedJdk(file, raw, i, collect);
    const directive = /^(\s*)\.\. (?:code-block|code|sourcecode)::\s*(\w*)/.exec(raw);
    if (directive && SHELL_FENCE.test(directive[2]!)) rstIndent = directive[1]!.length;
    else if (/::\s*$/.test(raw) && !raw.trim().startsWith('..'))
      rstIndent = raw.length - raw.trimStart().length;
    if (rstIndent !== undefined) section.block += 1;
  }
}

/** `[testenv]` keys of tox.ini: `extras`, `dependency_groups`, `deps`, `commands`. */
function readTox(file: string, text: string, collect: Collector): void {
  let section = '';
  let key = '';
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, index) => {
    const header = /^\[([^\]]+)\]/.exec(raw);
    if (header) {
      section = header[1]!.trim();
      key = '';
      return;
    }
    if (!section.startsWith('testenv')) return;
    const assignment = /^([\w-]+)\s*=\s*(.*)$/.exec(raw);
    let value: string;
    if (assignment) {
      key = assignment[1]!;
      value = assignment[2]!;
    } else if (/^\s+\S/.test(raw) && key) value = raw.trim();
    else return;
    if (!value || value.startsWith('#')) return;
    const secondary = SECONDARY.test(section);
    const at = { file, line: index + 1, context: `tox ${section}`, secondary };
    // what tox installs, written as the pip/uv command that does the same
    if (key === 'extras')
      collect.script(
        {
          ...at,
          text: `pip install -e .[${value
            .split(/[\s,]+/)
            .filter(Boolean)
            .join(',')}]`,
        },
        'tool',
      );
    else if (key === 'dependency_groups')
      collect.script(
        {
          ...at,
          text: `uv sync ${value
            .split(/[\s,]+/)
            .filter(Boolean)
            .map((g) => `--group ${g}`)
            .join(' ')}`,
        },
        'tool',
      );
    else if (key === 'commands' || key === 'commands_pre')
      collect.script({ ...at, text: value.replace(/\{posargs[^}]*\}/g, '').trim() }, 'tool');
  });
}

/** `session.install(...)` and `session.run(...)` calls of a noxfile, by their string arguments. */
function readNox(file: string, text: string, collect: Collector): void {
  let session = '';
  text.split(/\r?\n/).forEach((raw, index) => {
    const def = /^def\s+(\w+)\s*\(/.exec(raw);
    if (def) session = def[1]!;
    const call = /session\.(install|run)\((.*)\)/.exec(raw);
    if (!call) return;
    const args = [...call[2]!.matchAll(/["']([^"']+)["']/g)].map((m) => m[1]!);
    if (args.length === 0) return;
    const line = call[1] === 'install' ? ['pip', 'install', ...args] : args;
    collect.script(
      {
        file,
        line: index + 1,
        text: line.map((w) => (/\s/.test(w) ? `'${w}'` : w)).join(' '),
        context: `nox ${session}`,
        secondary: SECONDARY.test(session),
      },
      'tool',
    );
  });
}

/** Recipe lines of a Makefile (tab-indented) or justfile (indented), with their target. */
function readRecipes(file: string, text: string, collect: Collector, source: EvidenceSource) {
  let target = '';
  text.split(/\r?\n/).forEach((raw, index) => {
    const head = /^([\w.-]+)(?:\s+[\w-]+)*\s*:(?!=)/.exec(raw);
    if (head) {
      target = head[1]!;
      return;
    }
    if (!/^[ \t]+\S/.test(raw) || !target) return;
    const line = raw.trim().replace(/^[@-]+/, '');
    if (!line || line.startsWith('#')) return;
    collect.script(
      {
        file,
        line: index + 1,
        text: line,
        context: `target ${target}`,
        secondary: SECONDARY.test(target),
      },
      source,
    );
  });
}

/** Tool names of `mise.toml` → the runtime language and its environment (`nodejs` → node). */
export type MiseTools = Readonly<
  Record<string, readonly [VersionPin['language'], EnvironmentName]>
>;

/** mise.toml `[tools]` versions and `[tasks.*] run` commands. */
function readMise(file: string, text: string, collect: Collector, tools: MiseTools): void {
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(text) as Record<string, unknown>;
  } catch (error) {
    collect.problem(`${file} is not valid TOML (${(error as Error).message.split('\n')[0]})`);
    return;
  }
  const lines = text.split(/\r?\n/);
  const lineOf = (pattern: RegExp) => lines.findIndex((l) => pattern.test(l)) + 1;
  const listed = (doc.tools ?? {}) as Record<string, unknown>;
  for (const [name, value] of Object.entries(listed)) {
    const known = Object.hasOwn(tools, name) ? tools[name] : undefined;
    const versions = (Array.isArray(value) ? value : [value]).filter((v) => typeof v === 'string');
    if (!known || versions.length === 0) continue;
    collect.runtime({
      file,
      line: lineOf(new RegExp(`^\\s*"?${name}"?\\s*=`)),
      text: `${name} = ${versions.join(', ')}`,
      language: known[0],
      environment: known[1],
      versions,
      source: 'tool',
      secondary: false,
    });
  }
  const tasks = (doc.tasks ?? {}) as Record<string, { run?: unknown }>;
  for (const [name, task] of Object.entries(tasks)) {
    const runs = Array.isArray(task?.run) ? task.run : [task?.run];
    for (const run of runs.filter((r): r is string => typeof r === 'string')) {
      for (const line of run.split(/\r?\n/).filter((l) => l.trim())) {
        const at = lines.findIndex((l) => l.includes(line.trim().slice(0, 40))) + 1;
        collect.script(
          {
            file,
            line: at,
            text: line.trim(),
            context: `task ${name}`,
            secondary: SECONDARY.test(name),
          },
          'tool',
        );
      }
    }
  }
}

/** tox.ini, noxfile.py, Makefile, justfile or mise.toml. */
export function readTaskRunner(
  file: string,
  text: string,
  collect: Collector,
  tools: MiseTools,
): void {
  if (file === 'tox.ini') readTox(file, text, collect);
  else if (file === 'noxfile.py') readNox(file, text, collect);
  else if (file.endsWith('mise.toml')) readMise(file, text, collect, tools);
  else readRecipes(file, text, collect, 'tool');
}
