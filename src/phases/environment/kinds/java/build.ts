import type { EvidenceRef } from '../../../../core/environment.ts';
import { lineMatching, mavenRange, type JdkBound } from './range.ts';
import { exactMembers, type MemberTest } from '../../detect/members.ts';

/**
 * What a Maven POM or a Gradle settings file says about the build's members
 * and its JDK: `<modules>` (profiles too), `include(…)`, the enforcer's
 * `requireJavaVersion` and toolchain versions.
 */

type Node = Record<string, unknown>;
const obj = (value: unknown): Node => (value && typeof value === 'object' ? (value as Node) : {});

/** Every value under `key` anywhere in the parsed XML (plugins, executions, profiles). */
function collect(node: unknown, key: string, found: unknown[] = []): unknown[] {
  if (Array.isArray(node)) {
    for (const item of node) collect(item, key, found);
  } else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node as Node)) {
      if (k === key) found.push(...(Array.isArray(v) ? v : [v]));
      collect(v, key, found);
    }
  }
  return found;
}

/** `<modules>` of the project and of its profiles, as folders (`a/pom-x.xml` → `a`). */
export function pomMembers(project: Node): MemberTest | undefined {
  const modules = collect([obj(project.modules), obj(project.profiles)], 'module').filter(
    (m): m is string => typeof m === 'string',
  );
  return exactMembers(modules.map((m) => m.replace(/\/[^/]*\.xml$/, '')));
}

/** The enforcer's `requireJavaVersion` and toolchain versions, with `${property}` resolved. */
export function pomJdkBounds(
  file: string,
  text: string,
  project: Node,
  resolve: (value: unknown) => string | undefined,
): JdkBound[] {
  const sources: [unknown[], string, RegExp][] = [
    [
      collect(project, 'requireJavaVersion'),
      'maven-enforcer requireJavaVersion',
      /<requireJavaVersion\b/,
    ],
    [
      collect(collect(project, 'toolchains'), 'jdk'),
      'maven-toolchains-plugin jdk',
      /<toolchains\b/,
    ],
    [collect(project, 'jdkToolchain'), 'maven-compiler-plugin jdkToolchain', /<jdkToolchain\b/],
  ];
  const bounds: JdkBound[] = [];
  for (const [nodes, source, pattern] of sources) {
    for (const node of nodes) {
      const spec = resolve(obj(node).version);
      if (!spec) continue;
      const range = mavenRange(spec);
      if (range.minimum === undefined && range.maximum === undefined) continue;
      const line = lineMatching(text, pattern);
      const ref: EvidenceRef = { file, line, text: `${source} ${spec}` };
      const pin = { language: 'java' as const, spec, source: `${file} ${source}` };
      bounds.push({
        pin: {
          ...pin,
          ...(range.minimum !== undefined ? { minimum: String(range.minimum) } : {}),
          ...(range.maximum !== undefined ? { maximum: String(range.maximum) } : {}),
        },
        ref,
      });
    }
  }
  return bounds;
}

export interface GradleSettings {
  /** The included projects and builds; undefined when the includes are computed (all counted). */
  members: MemberTest | undefined;
  dynamic: boolean;
  /** A toolchain resolver plugin (foojay) lets Gradle download the toolchain JDK. */
  provisionsToolchains: boolean;
}

/** `include(":app", ":lib:core")`, `include 'a', 'b'`, `includeBuild("build-logic")`, `projectDir = file("…")`. */
export function parseGradleSettings(text: string): GradleSettings {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|\s)\/\/.*$/gm, '$1');
  const dirs: string[] = [];
  const renamed = new Map<string, string>();
  for (const m of code.matchAll(
    /project\(\s*["']([^"']+)["']\s*\)\.projectDir\s*=\s*(?:file|File)\(\s*(?:rootDir\s*,\s*|["']\$rootDir\/)?["']?([^"')]+)["']?\s*\)/g,
  ))
    renamed.set(m[1]!, m[2]!.replace(/^\$rootDir\//, ''));
  let dynamic = false;
  for (const m of code.matchAll(/\binclude(Flat|Build)?\b\s*(?:\(([^)]*)\)|([^\n]*))/g)) {
    const literals = [...(m[2] ?? m[3] ?? '').matchAll(/["']([^"'$]+)["']/g)].map((l) => l[1]!);
    if (literals.length === 0) dynamic = true;
    for (const name of literals) {
      if (m[1] === 'Build') dirs.push(name);
      else if (m[1] === 'Flat') dirs.push(`../${name}`);
      else
        dirs.push(
          renamed.get(name) ?? renamed.get(`:${name}`) ?? name.replace(/^:/, '').replace(/:/g, '/'),
        );
    }
  }
  return {
    members: dynamic ? undefined : exactMembers(dirs),
    dynamic,
    provisionsToolchains: /foojay-resolver|toolchainManagement/.test(code),
  };
}
