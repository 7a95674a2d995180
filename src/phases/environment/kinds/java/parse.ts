import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { VersionPin } from '../../../../core/environment.ts';
import { pomJdkBounds, pomMembers } from './build.ts';
import type { JdkBound } from './range.ts';
import type { MemberTest } from '../../detect/members.ts';
import { pin } from '../../detect/versions.ts';

/** Reading a `pom.xml` and Gradle build scripts as text (never run). */

const LISTS = new Set([
  'project.dependencies.dependency',
  'project.modules.module',
  'project.build.plugins.plugin',
]);
const xml = new XMLParser({
  ignoreAttributes: true,
  parseTagValue: false,
  isArray: (_n, path) => LISTS.has(String(path)),
});

type Node = Record<string, unknown>;
const obj = (value: unknown): Node => (value && typeof value === 'object' ? (value as Node) : {});
const list = (value: unknown): Node[] => (Array.isArray(value) ? value.map(obj) : []);

export interface BuildFacts {
  dependencies: string[];
  pins: (VersionPin | undefined)[];
  multiModule: boolean;
  /** The folders the build includes (Maven modules, Gradle includes). */
  members?: MemberTest | undefined;
  /** Enforcer rules, toolchains, wrappers, jvm.config: the JDK the build really needs. */
  bounds: JdkBound[];
  notes: string[];
}

/** Facts of a build that says nothing yet: the start of every reading. */
export function noBuildFacts(): BuildFacts {
  return { dependencies: [], pins: [], multiModule: false, bounds: [], notes: [] };
}

/** `pom.xml`: dependencies, `<modules>`, and the Java release (release → source → java.version → compiler plugin). */
export function parsePom(text: string, file = 'pom.xml'): BuildFacts {
  const facts = noBuildFacts();
  if (XMLValidator.validate(text) !== true) {
    facts.notes.push('pom.xml is not well-formed XML');
    return facts;
  }
  const project = obj(obj(xml.parse(text)).project);
  const properties = obj(project.properties);
  const resolve = (value: unknown): string | undefined => {
    if (typeof value !== 'string') return undefined;
    const ref = /^\$\{([^}]+)\}$/.exec(value.trim());
    return ref
      ? typeof properties[ref[1]!] === 'string'
        ? (properties[ref[1]!] as string)
        : undefined
      : value;
  };
  for (const dep of list(obj(project.dependencies).dependency)) {
    const version = resolve(dep.version);
    facts.dependencies.push(
      `${String(dep.groupId)}:${String(dep.artifactId)}${version ? `:${version}` : ''}`,
    );
  }
  facts.members = pomMembers(project);
  facts.multiModule = facts.members !== undefined;
  facts.bounds = pomJdkBounds(file, text, project, resolve);
  const compiler = list(obj(obj(project.build).plugins).plugin).find(
    (p) => p.artifactId === 'maven-compiler-plugin',
  );
  const config = obj(compiler?.configuration);
  const candidates: [unknown, string][] = [
    [properties['maven.compiler.release'], 'pom.xml maven.compiler.release'],
    [config.release, 'pom.xml maven-compiler-plugin release'],
    [properties['maven.compiler.source'], 'pom.xml maven.compiler.source'],
    [config.source, 'pom.xml maven-compiler-plugin source'],
    [properties['java.version'], 'pom.xml java.version'],
  ];
  const found = candidates
    .map(([value, source]) => [resolve(value), source] as const)
    .find(([v]) => v);
  if (found) facts.pins.push(pin('java', found[0]!, found[1]));
  return facts;
}

const GRADLE_DEPENDENCY =
  /\b(?:implementation|api|compileOnly|runtimeOnly|testImplementation|testRuntimeOnly|testCompileOnly|annotationProcessor|kapt|ksp|classpath)\s*\(?\s*(?:platform\s*\(\s*)?(?:["']([^"'$]+)["']|(libs\.[\w.]+))/g;
const GRADLE_JAVA = [
  /JavaLanguageVersion\.of\(\s*(\d+)\s*\)/,
  /jvmToolchain\(\s*(\d+)\s*\)/,
  /sourceCompatibility\s*=?\s*(?:JavaVersion\.VERSION_)?["']?([\d._]+)["']?/,
  /jvmTarget(?:\.set\()?\s*=?\s*(?:JvmTarget\.JVM_)?["']?([\d._]+)["']?/,
];

/** Groovy or Kotlin Gradle build script, read as text (never run). */
export function parseGradle(text: string, source: string): BuildFacts {
  const dependencies = [...text.matchAll(GRADLE_DEPENDENCY)].map((m) => (m[1] ?? m[2])!);
  const pins: (VersionPin | undefined)[] = [];
  for (const pattern of GRADLE_JAVA) {
    const match = pattern.exec(text);
    if (match) {
      pins.push(
        pin('java', match[1]!.replace(/_/g, '.'), `${source} ${pattern.source.split(/[\\(]/)[0]}`),
      );
      break;
    }
  }
  return { ...noBuildFacts(), dependencies, pins };
}
