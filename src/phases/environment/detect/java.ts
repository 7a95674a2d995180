import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { VerificationCheck, VersionPin } from '../../../core/environment.ts';
import {
  filesOf,
  versionFile,
  type AnalyzeContext,
  type Analyzer,
  type FolderFiles,
} from './project.ts';
import { firstLine, parseToolVersions, pin } from './versions.ts';

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

interface BuildFacts {
  dependencies: string[];
  pins: (VersionPin | undefined)[];
  multiModule: boolean;
  notes: string[];
}

/** `pom.xml`: dependencies, `<modules>`, and the Java release (release → source → java.version → compiler plugin). */
export function parsePom(text: string): BuildFacts {
  const facts: BuildFacts = { dependencies: [], pins: [], multiModule: false, notes: [] };
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
  facts.multiModule =
    list(obj(project.modules).module).length > 0 || typeof obj(project.modules).module === 'string';
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
  return { dependencies, pins, multiModule: false, notes: [] };
}

async function otherPins(
  folder: FolderFiles,
  context: AnalyzeContext,
): Promise<(VersionPin | undefined)[]> {
  const pins: (VersionPin | undefined)[] = [];
  const read = async (key: string) => {
    const rel = versionFile(folder, context, key);
    return rel ? { rel, text: (await context.read(rel)) ?? '' } : undefined;
  };
  const system = await read('system.properties');
  const runtime = system && /^java\.runtime\.version\s*=\s*(.+)$/m.exec(system.text)?.[1];
  if (system && runtime) pins.push(pin('java', runtime, `${system.rel} java.runtime.version`));
  const sdkman = await read('.sdkmanrc');
  const sdk = sdkman && /^java\s*=\s*(.+)$/m.exec(sdkman.text)?.[1];
  if (sdkman && sdk) pins.push(pin('java', firstLine(sdk), `${sdkman.rel} java`));
  const tools = await read('.tool-versions');
  if (tools)
    pins.push(...parseToolVersions(tools.text, tools.rel).filter((p) => p.language === 'java'));
  return pins;
}

/** Java's specification version ≥ the minimum, as `true`/`false` (Java 8 reports `1.8`). */
export function javaVersionCheck(minimum: string | undefined): VerificationCheck {
  return minimum
    ? {
        command: `v=$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p'); [ "\${v#1.}" -ge ${minimum} ] 2>/dev/null && echo true || echo false`,
        expected_output: 'true',
      }
    : { command: 'java -version > /dev/null 2>&1 && echo OK', expected_output: 'OK' };
}

export const analyzeJava: Analyzer = async (folder, context) => {
  const has = (key: string) => folder.files.has(key);
  const gradleKeys = [
    'build.gradle.kts',
    'build.gradle',
    'settings.gradle.kts',
    'settings.gradle',
  ].filter(has);
  if (!has('pom.xml') && gradleKeys.length === 0) return undefined;
  const gradle = gradleKeys.length > 0 && (has('gradlew') || !has('pom.xml'));
  const notes: string[] = [];
  const facts: BuildFacts = { dependencies: [], pins: [], multiModule: false, notes };
  if (gradle) {
    for (const key of gradleKeys) {
      const parsed = parseGradle((await context.read(folder.files.get(key)!)) ?? '', key);
      facts.dependencies.push(...parsed.dependencies);
      facts.pins.push(...parsed.pins);
    }
    facts.multiModule = gradleKeys.some((k) => k.startsWith('settings.'));
  } else {
    const parsed = parsePom((await context.read(folder.files.get('pom.xml')!)) ?? '');
    Object.assign(facts, { ...parsed, notes: [...notes, ...parsed.notes] });
  }
  if (has('pom.xml') && gradleKeys.length > 0)
    facts.notes.push(
      `both Maven and Gradle builds; using ${gradle ? 'Gradle (it has a wrapper)' : 'Maven'}`,
    );
  facts.pins.push(...(await otherPins(folder, context)));
  const versions = facts.pins.filter((p): p is VersionPin => p !== undefined);
  const wrapper = gradle ? has('gradlew') : has('mvnw');
  const tool = gradle
    ? wrapper
      ? 'sh ./gradlew --no-daemon'
      : 'gradle --no-daemon'
    : wrapper
      ? 'sh ./mvnw -B'
      : 'mvn -B';
  facts.notes.push(`build tool ${gradle ? 'gradle' : 'maven'}${wrapper ? ' (wrapper)' : ''}`);
  return {
    environment: 'java',
    dir: folder.dir,
    manifests: filesOf(folder, 'java'),
    dependencies: facts.dependencies,
    packageManager: gradle ? 'gradle' : 'maven',
    versions,
    hasBuildConfig: true,
    workspace: facts.multiModule,
    setup: [gradle ? `${tool} assemble` : `${tool} -DskipTests install`],
    versionCheck: javaVersionCheck,
    checks: [{ command: `${tool} --version > /dev/null 2>&1 && echo OK`, expected_output: 'OK' }],
    notes: facts.notes,
  };
};
