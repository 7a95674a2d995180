import type { VerificationCheck, VersionPin } from '../../../../core/environment.ts';
import { exactMembers } from '../../detect/members.ts';
import { filesOf, maybe, versionFile, type Analyzer } from '../../detect/project.ts';
import { parseToolVersions, pin } from '../../detect/versions.ts';

/** The runtime's names in `.tool-versions` and `mise.toml`. */
export const TOOL_NAMES = { golang: 'go', go: 'go' } as const;

export interface GoMod {
  module: string | undefined;
  go: string | undefined;
  toolchain: string | undefined;
  /** Direct requirements (`// indirect` ones left out), as `path version`. */
  requires: string[];
}

/** `go.mod`: module path, `go` and `toolchain` lines, direct requirements (line and block form). */
export function parseGoMod(text: string): GoMod {
  const result: GoMod = { module: undefined, go: undefined, toolchain: undefined, requires: [] };
  let inRequire = false;
  for (const raw of text.split('\n')) {
    const indirect = raw.includes('// indirect');
    const line = raw.replace(/\/\/.*$/, '').trim();
    if (inRequire) {
      if (line === ')') inRequire = false;
      else if (line && !indirect) result.requires.push(line.replace(/\s+/g, ' '));
      continue;
    }
    const [word, ...rest] = line.split(/\s+/);
    const value = rest.join(' ');
    if (word === 'module') result.module = value.replace(/^"|"$/g, '');
    else if (word === 'go') result.go = value;
    else if (word === 'toolchain') result.toolchain = value;
    else if (word === 'require' && value === '(') inRequire = true;
    else if (word === 'require' && value && !indirect)
      result.requires.push(value.replace(/\s+/g, ' '));
  }
  return result;
}

/** `go.work`: `go`, `toolchain` and the `use` folders (line and block form). */
export function parseGoWork(text: string): { go?: string; toolchain?: string; use: string[] } {
  const mod = parseGoMod(text.replace(/^\s*use\b.*$/gm, ''));
  const use: string[] = [];
  let inUse = false;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\/\/.*$/, '').trim();
    if (inUse) {
      if (line === ')') inUse = false;
      else if (line) use.push(line.replace(/^"|"$/g, ''));
      continue;
    }
    const match = /^use\s+(.+)$/.exec(line);
    if (match?.[1] === '(') inUse = true;
    else if (match) use.push(match[1]!.replace(/^"|"$/g, ''));
  }
  return { ...maybe('go', mod.go), ...maybe('toolchain', mod.toolchain), use };
}

/** `./a/...` for each `use` folder (`./...` for `.`): what `go build` compiles in a workspace. */
function patternsOf(use: string[]): string {
  return use
    .map((dir) => dir.replace(/^\.\/?/, '').replace(/\/+$/, ''))
    .map((dir) => (dir ? `./${dir}/...` : './...'))
    .join(' ');
}

export const analyzeGo: Analyzer = async (folder, context) => {
  const modRel = folder.files.get('go.mod');
  const workRel = folder.files.get('go.work');
  if (!modRel && !workRel) return undefined;
  const mod = modRel ? parseGoMod((await context.read(modRel)) ?? '') : undefined;
  const work = workRel ? parseGoWork((await context.read(workRel)) ?? '') : undefined;
  const pins: (VersionPin | undefined)[] = [];
  // the workspace's go and toolchain lines govern its modules
  if (work?.toolchain) pins.push(pin('go', work.toolchain, 'go.work toolchain'));
  if (work?.go) pins.push(pin('go', work.go, 'go.work go'));
  if (mod?.toolchain) pins.push(pin('go', mod.toolchain, 'go.mod toolchain'));
  if (mod?.go) pins.push(pin('go', mod.go, 'go.mod go'));
  const tools = versionFile(folder, context, '.tool-versions');
  if (tools)
    pins.push(
      ...parseToolVersions((await context.read(tools)) ?? '', tools, TOOL_NAMES).filter(
        (p) => p.language === 'go',
      ),
    );
  const patterns = work && work.use.length > 0 ? patternsOf(work.use) : './...';
  // compiling is the check that the module (or workspace) and its dependencies are all there
  const checks: VerificationCheck[] = [
    { command: `go build ${patterns} && echo OK`, expected_output: 'OK' },
  ];
  // In a workspace `go list -m` prints every module of the workspace, so only for a single module.
  if (mod?.module && !workRel) checks.push({ command: 'go list -m', expected_output: mod.module });
  const notes = [
    work
      ? `Go workspace (go.work): ${work.use.join(', ') || 'no use lines'}`
      : `module ${mod?.module ?? '(unnamed)'}`,
  ];
  if (mod?.go || work?.go)
    notes.push(
      'with GOTOOLCHAIN=auto (the default) go downloads a newer toolchain when go.mod or go.work asks for one',
    );
  const members = work ? exactMembers(work.use) : undefined;
  return {
    environment: 'go',
    dir: folder.dir,
    manifests: filesOf(folder, 'go'),
    dependencies: mod?.requires ?? [],
    packageManager: 'go',
    versions: pins.filter((p): p is VersionPin => p !== undefined),
    hasBuildConfig: folder.files.has('go.sum') || Boolean(workRel),
    workspace: Boolean(workRel),
    ...maybe('isMember', members),
    ...maybe(
      'published',
      folder.dir === '.' && modRel
        ? { file: modRel, line: 1, text: `module ${mod?.module ?? ''}` }
        : undefined,
    ),
    // a workspace has no single go.mod to download for: list the packages' dependencies instead
    setup: [work ? `go list -deps -test ${patterns} > /dev/null` : 'go mod download'],
    // GOTOOLCHAIN=auto fetches the toolchain go.mod asks for, so the version needs no check of its own
    versionCheck: () => ({ command: 'go version > /dev/null && echo OK', expected_output: 'OK' }),
    checks,
    notes,
  };
};
