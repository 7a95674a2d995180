import type { VerificationCheck, VersionPin } from '../../../core/environment.ts';
import { filesOf, versionFile, type Analyzer } from './project.ts';
import { parseToolVersions, pin } from './versions.ts';

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

export const analyzeGo: Analyzer = async (folder, context) => {
  const modRel = folder.files.get('go.mod');
  const workRel = folder.files.get('go.work');
  if (!modRel && !workRel) return undefined;
  const mod = modRel ? parseGoMod((await context.read(modRel)) ?? '') : undefined;
  const pins: (VersionPin | undefined)[] = [];
  if (mod?.toolchain) pins.push(pin('go', mod.toolchain, 'go.mod toolchain'));
  if (mod?.go) pins.push(pin('go', mod.go, 'go.mod go'));
  const tools = versionFile(folder, context, '.tool-versions');
  if (tools)
    pins.push(
      ...parseToolVersions((await context.read(tools)) ?? '', tools).filter(
        (p) => p.language === 'go',
      ),
    );
  const checks: VerificationCheck[] = [
    { command: 'go mod verify', expected_output: 'all modules verified' },
  ];
  // In a workspace `go list -m` prints every module of the workspace, so only for a single module.
  if (mod?.module && !workRel) checks.push({ command: 'go list -m', expected_output: mod.module });
  const notes = [workRel ? 'Go workspace (go.work)' : `module ${mod?.module ?? '(unnamed)'}`];
  if (mod?.go)
    notes.push(
      'with GOTOOLCHAIN=auto (the default) go downloads a newer toolchain when go.mod asks for one',
    );
  return {
    environment: 'go',
    dir: folder.dir,
    manifests: filesOf(folder, 'go'),
    dependencies: mod?.requires ?? [],
    packageManager: 'go',
    versions: pins.filter((p): p is VersionPin => p !== undefined),
    hasBuildConfig: folder.files.has('go.sum') || Boolean(workRel),
    workspace: Boolean(workRel),
    setup: ['go mod download'],
    // GOTOOLCHAIN=auto fetches the toolchain go.mod asks for, so the version needs no check of its own
    versionCheck: () => ({ command: 'go version > /dev/null && echo OK', expected_output: 'OK' }),
    checks,
    notes,
  };
};
