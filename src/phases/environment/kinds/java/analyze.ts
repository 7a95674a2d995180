import type { EvidenceRef, VerificationCheck, VersionPin } from '../../../../core/environment.ts';
import { findCommands, refOf, type Evidence } from '../../detect/evidence.ts';
import { parseGradleSettings } from './build.ts';
import { noBuildFacts, parseGradle, parsePom, type BuildFacts } from './parse.ts';
import {
  ciBounds,
  documentedBounds,
  gradleToolchainBounds,
  javaVersionFileBound,
  jvmConfigBounds,
  wrapperBounds,
  type JdkBound,
} from './range.ts';
import {
  filesOf,
  maybe,
  versionFile,
  type AnalyzeContext,
  type Analyzer,
  type FolderFiles,
} from '../../detect/project.ts';
import { firstLine, parseToolVersions, pin, rangeOf } from '../../detect/versions.ts';

/** The runtime's names in `.tool-versions` and `mise.toml`. */
export const TOOL_NAMES = { java: 'java' } as const;

export { parseGradle, parsePom } from './parse.ts';

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
    pins.push(
      ...parseToolVersions(tools.text, tools.rel, TOOL_NAMES).filter((p) => p.language === 'java'),
    );
  return pins;
}

/** Java's specification version within the range, as `true`/`false` (Java 8 reports `1.8`). */
export function javaVersionCheck(minimum: string | undefined, maximum?: string): VerificationCheck {
  if (!minimum && !maximum)
    return { command: 'java -version > /dev/null 2>&1 && echo OK', expected_output: 'OK' };
  const tests = [
    ...(minimum ? [`[ "\${v#1.}" -ge ${minimum} ]`] : []),
    ...(maximum ? [`[ "\${v#1.}" -le ${maximum} ]`] : []),
  ].join(' && ');
  return {
    command: `v=$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p'); { ${tests}; } 2>/dev/null && echo true || echo false`,
    expected_output: 'true',
  };
}

type Tool = 'maven' | 'gradle';

/**
 * Maven or Gradle when a folder has both: what CI runs, then what the README
 * uses, then the only wrapper present, then Gradle with a wrapper.
 */
function chooseTool(
  has: (key: string) => boolean,
  gradleKeys: string[],
  evidence: Evidence,
): { tool: Tool; rule: string; refs: EvidenceRef[] } {
  if (!has('pom.xml')) return { tool: 'gradle', rule: 'the Gradle build', refs: [] };
  if (gradleKeys.length === 0) return { tool: 'maven', rule: 'the Maven build', refs: [] };
  for (const source of ['ci', 'tool', 'docs'] as const) {
    const found = findCommands(evidence, {
      environment: 'java',
      tool: ['maven', 'gradle'],
      source,
      kind: ['test', 'build', 'install'],
    })[0];
    if (found)
      return {
        tool: found.command.tool as Tool,
        rule: `both Maven and Gradle builds; the project's ${source === 'ci' ? 'CI' : source === 'tool' ? 'task runner' : 'README'} runs ${found.command.tool}`,
        refs: [refOf(found)],
      };
  }
  if (has('mvnw') !== has('gradlew'))
    return {
      tool: has('mvnw') ? 'maven' : 'gradle',
      rule: `both Maven and Gradle builds; only ${has('mvnw') ? 'Maven' : 'Gradle'} has a wrapper`,
      refs: [],
    };
  const gradle = has('gradlew');
  return {
    tool: gradle ? 'gradle' : 'maven',
    rule: `both Maven and Gradle builds; nothing else tells them apart: ${gradle ? 'Gradle (it has a wrapper)' : 'Maven'}`,
    refs: [],
  };
}

async function readGradle(
  folder: FolderFiles,
  context: AnalyzeContext,
  gradleKeys: string[],
): Promise<BuildFacts> {
  const facts = noBuildFacts();
  const text = async (key: string) => (await context.read(folder.files.get(key)!)) ?? '';
  let provisioned = false;
  for (const key of gradleKeys) {
    const content = await text(key);
    const parsed = parseGradle(content, key);
    facts.dependencies.push(...parsed.dependencies);
    facts.pins.push(...parsed.pins);
    if (key.startsWith('settings.')) {
      const settings = parseGradleSettings(content);
      facts.multiModule = true;
      facts.members = settings.members;
      provisioned = settings.provisionsToolchains;
      if (settings.dynamic)
        facts.notes.push(
          `${key} computes its includes: every Gradle project below counts as a member`,
        );
    }
  }
  const conventions = [...folder.files.keys()].filter((k) => /^(?:buildSrc|build-logic)\//.test(k));
  for (const key of [...gradleKeys, ...conventions])
    facts.bounds.push(
      ...gradleToolchainBounds(folder.files.get(key)!, await text(key), provisioned),
    );
  return facts;
}

/** JDK bounds from files beside the build: wrappers, `.mvn/jvm.config`, `.java-version`, and CI. */
async function sideBounds(
  folder: FolderFiles,
  context: AnalyzeContext,
  tool: Tool,
): Promise<JdkBound[]> {
  const bounds: JdkBound[] = [];
  const read = async (rel: string | undefined) =>
    rel ? ((await context.read(rel)) ?? '') : undefined;
  const wrapperKey =
    tool === 'gradle'
      ? 'gradle/wrapper/gradle-wrapper.properties'
      : '.mvn/wrapper/maven-wrapper.properties';
  const wrapper = folder.files.get(wrapperKey);
  const wrapperText = await read(wrapper);
  if (wrapper && wrapperText !== undefined) bounds.push(...wrapperBounds(wrapper, wrapperText));
  const jvmConfig = folder.files.get('.mvn/jvm.config');
  const jvmText = await read(jvmConfig);
  if (tool === 'maven' && jvmConfig && jvmText !== undefined)
    bounds.push(...jvmConfigBounds(jvmConfig, jvmText));
  const javaVersion = versionFile(folder, context, '.java-version');
  const javaVersionText = await read(javaVersion);
  if (javaVersion && javaVersionText !== undefined)
    bounds.push(...javaVersionFileBound(javaVersion, javaVersionText));
  const tested = ciBounds(
    context.evidence.runtimes.filter(
      (r) => r.language === 'java' && r.source === 'ci' && !r.secondary,
    ),
  );
  // what CI tests is proof; without a version there, the JDK the docs say the build needs
  bounds.push(
    ...(tested.length > 0
      ? tested
      : documentedBounds(
          context.evidence.runtimes.filter((r) => r.language === 'java' && r.source === 'docs'),
        )),
  );
  return bounds;
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
  const choice = chooseTool(has, gradleKeys, context.evidence);
  const gradle = choice.tool === 'gradle';
  const facts = gradle
    ? await readGradle(folder, context, gradleKeys)
    : parsePom(
        (await context.read(folder.files.get('pom.xml')!)) ?? '',
        folder.files.get('pom.xml')!,
      );
  facts.bounds.push(...(await sideBounds(folder, context, choice.tool)));
  facts.pins.push(...(await otherPins(folder, context)));
  const versions = [
    ...facts.pins.filter((p): p is VersionPin => p !== undefined),
    ...facts.bounds.map((b) => b.pin),
  ];
  const wrapper = gradle ? has('gradlew') : has('mvnw');
  const tool = gradle
    ? wrapper
      ? 'sh ./gradlew --no-daemon'
      : 'gradle --no-daemon'
    : wrapper
      ? 'sh ./mvnw -B'
      : 'mvn -B';
  facts.notes.push(`build tool ${choice.tool}${wrapper ? ' (wrapper)' : ''}: ${choice.rule}`);
  const range = rangeOf(true, versions);
  if (range.minimum && range.maximum && Number(range.minimum) > Number(range.maximum))
    facts.notes.push(
      `the JDK sources disagree: at least ${range.minimum} but at most ${range.maximum}`,
    );
  return {
    environment: 'java',
    dir: folder.dir,
    manifests: filesOf(folder, 'java'),
    dependencies: facts.dependencies,
    packageManager: choice.tool,
    versions,
    hasBuildConfig: true,
    workspace: facts.multiModule,
    ...maybe('isMember', facts.members),
    ...maybe(
      'published',
      folder.dir === '.'
        ? { file: filesOf(folder, 'java')[0]!, line: 0, text: 'the root build' }
        : undefined,
    ),
    setup: [gradle ? `${tool} assemble` : `${tool} -DskipTests install`],
    versionCheck: javaVersionCheck,
    checks: [{ command: `${tool} --version > /dev/null 2>&1 && echo OK`, expected_output: 'OK' }],
    notes: facts.notes,
    versionRefs: facts.bounds.map((b) => b.ref),
    decisions: [
      { topic: 'build_tool', choice: choice.tool, rule: choice.rule, evidence: choice.refs },
    ],
  };
};
