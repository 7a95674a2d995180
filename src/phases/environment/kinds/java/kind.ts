import path from 'node:path';
import { tagVersion } from '../../detect/ci-config.ts';
import { positional, type CommandRule } from '../../detect/commands.ts';
import { lastSegment } from '../../detect/files.ts';
import { exists } from '../build-files.ts';
import type { EnvironmentKind, TestDetector } from '../kind.ts';
import { sig } from '../signature.ts';
import { analyzeJava, TOOL_NAMES } from './analyze.ts';

/**
 * Gradle convention plugins: scripts in `buildSrc/` and `build-logic/` belong
 * to the build that uses them (their toolchain settings are the build's), not
 * to a project of their own.
 */
const CONVENTION_FOLDERS: ReadonlySet<string> = new Set(['buildSrc', 'build-logic']);
const CONVENTION_KEY = /^(?:buildSrc|build-logic)\/.*\.gradle(?:\.kts)?$/;

const isConventionFolder = (dir: string) => dir.split('/').some((p) => CONVENTION_FOLDERS.has(p));

/** The folder a build file describes, as segments from the end of its path. */
function keyLength(parts: readonly string[]): number | undefined {
  const name = parts[parts.length - 1]!;
  const parent = parts[parts.length - 2];
  const convention = parts.findIndex((p) => CONVENTION_FOLDERS.has(p));
  if (convention >= 0 && /\.gradle(?:\.kts)?$/.test(name)) return parts.length - convention;
  if (parent === '.mvn' && name === 'jvm.config') return 2;
  if (parent === 'wrapper' && ['gradle', '.mvn'].includes(parts[parts.length - 3] ?? '')) return 3;
  if (parent === 'gradle' && name.endsWith('.versions.toml')) return 2;
  return undefined;
}

const mavenTest: TestDetector = async (dir) =>
  (await exists(path.join(dir, 'pom.xml'))) ? 'mvn -q test' : undefined;
const gradleTest: TestDetector = async (dir) => {
  const gradle =
    (await exists(path.join(dir, 'build.gradle'))) ||
    (await exists(path.join(dir, 'build.gradle.kts')));
  if (!gradle) return undefined;
  return (await exists(path.join(dir, 'gradlew'))) ? './gradlew test' : 'gradle test';
};

const maven: CommandRule = (tool, args) => {
  if (!['mvn', 'mvnw', 'mvnd'].includes(tool)) return undefined;
  const goals = positional(args);
  const tests =
    goals.some((g) => /^(?:test|verify|integration-test)$/.test(g)) ||
    (goals.some((g) => /^(?:install|package|deploy)$/.test(g)) &&
      !args.some((a) => /^-D(?:skipTests|maven\.test\.skip)(?:=true)?$/.test(a)));
  return goals.length > 0
    ? { environment: 'java', tool: 'maven', kind: tests ? 'test' : 'build' }
    : undefined;
};

const gradle: CommandRule = (tool, args) => {
  if (tool !== 'gradle' && tool !== 'gradlew') return undefined;
  const tasks = positional(args).map((t) => t.replace(/^.*:/, ''));
  if (tasks.length === 0) return undefined;
  const tests = tasks.some((t) => /^(?:test|check|build|integrationTest)$/.test(t));
  return { environment: 'java', tool: 'gradle', kind: tests ? 'test' : 'build' };
};

/** The JDK a Maven or Gradle image tag names (`3.9-eclipse-temurin-17` → 17). */
function javaImage(repo: string, tag: string) {
  if (/^(?:maven|gradle)$/.test(repo)) {
    const jdk = /(?:jdk|temurin-|openjdk|corretto|zulu|java|graalvm-?\w*?-?)(\d+)/.exec(tag)?.[1];
    return jdk ? { language: 'java' as const, version: jdk } : { language: 'java' as const };
  }
  if (/temurin|openjdk|jdk|corretto|zulu|java|sapmachine/.test(repo)) {
    const version = tagVersion(tag);
    return version ? { language: 'java' as const, version } : { language: 'java' as const };
  }
  return undefined;
}

/** Maven and Gradle builds on a JDK. */
export const java: EnvironmentKind<'java'> = {
  name: 'java',
  language: 'java',
  tieBreak: 2,
  files: {
    roles: {
      'pom.xml': 'manifest',
      'build.gradle': 'manifest',
      'build.gradle.kts': 'manifest',
      'settings.gradle': 'manifest',
      'settings.gradle.kts': 'manifest',
      mvnw: 'wrapper',
      gradlew: 'wrapper',
      'system.properties': 'version',
      '.sdkmanrc': 'version',
      '.java-version': 'version',
      '.mvn/jvm.config': 'support',
    },
    wanted: (name, dir) =>
      (name === 'jvm.config' && lastSegment(dir) === '.mvn') ||
      ((name.endsWith('.gradle.kts') || name.endsWith('.gradle')) && isConventionFolder(dir)) ||
      (name.endsWith('-wrapper.properties') && lastSegment(dir) === 'wrapper') ||
      (name.endsWith('.versions.toml') && lastSegment(dir) === 'gradle'),
    describe: (key) =>
      CONVENTION_KEY.test(key) ||
      key.endsWith('-wrapper.properties') ||
      key.endsWith('.versions.toml')
        ? 'support'
        : undefined,
    keyLength,
  },
  analyze: analyzeJava,
  commands: [maven, gradle],
  toolWords: ['mvnw?', 'mvnd', 'gradlew?'],
  toolNames: Object.keys(TOOL_NAMES),
  ci: {
    setupActions: [
      { uses: /^actions\/setup-java@/, language: 'java', versionKeys: ['java-version'] },
      {
        uses: /^gradle\/(?:actions\/setup-gradle|gradle-build-action)@/,
        language: 'java',
        versionKeys: [],
      },
    ],
    image: javaImage,
    travisKey: 'jdk',
  },
  rangeOfAllPins: {
    label: 'JDK',
    rule: 'the highest minimum and the lowest maximum of the build, its wrapper, toolchains, jvm.config, version files and CI',
  },
  defaultCheck: { command: 'java -version > /dev/null 2>&1 && echo OK', expected_output: 'OK' },
  planner: {
    description: 'Java with Maven/Gradle',
    selectedBy: '`pom.xml` or `build.gradle`',
  },
  aliases: ['jdk', 'maven', 'gradle', 'kotlin'],
  testDetectors: (packageManager) =>
    packageManager === 'gradle' ? [gradleTest, mavenTest] : [mavenTest, gradleTest],
  testGuessRank: 3,
  signatures: {
    fatal: [
      sig('out-of-memory', 'java', /java\.lang\.OutOfMemoryError/),
      sig('out-of-memory', 'gradle', /Gradle build daemon disappeared unexpectedly/),
    ],
    overrides: [
      sig(
        'cached-failure',
        'maven',
        /was cached in the local repository, resolution will not be reattempted/,
        'envHint.mavenCached',
      ),
    ],
    retryable: [
      sig(
        'lock',
        'gradle',
        /Timeout waiting to lock|It is currently in use by another Gradle instance/,
      ),
      sig('server-error', 'maven', /Return code is: 5\d\d|status code:? 5\d\d|status: 5\d\d/),
    ],
    fixable: [
      sig('unknown-package', 'maven', /Could not find artifact|Failure to find [\w.-]+:[\w.-]+/),
      sig('unknown-package', 'gradle', /Could not find [\w.-]+:[\w.-]+/),
      sig(
        'toolchain',
        'java',
        /invalid (?:source|target) release|release version \d+ not supported|Unsupported class file major version|No matching toolchains found|Cannot find a Java installation|has been compiled by a more recent version of the Java Runtime/,
      ),
      sig(
        'config-syntax',
        'maven',
        /Non-parseable POM|Malformed POM|The build could not read \d+ project/,
      ),
      sig(
        'config-syntax',
        'gradle',
        /Script compilation errors?|Could not compile (?:build|settings) file|A problem occurred evaluating (?:root )?project/,
      ),
      sig(
        'missing-file',
        'maven',
        /there is no POM in this directory|The goal you specified requires a project to execute but there is no POM/,
      ),
    ],
  },
  job: {
    imageDescription: 'Image for the `java` environment (Maven, Gradle).',
    cacheDirs: ['maven', 'gradle'],
    variables: (dir) => ({
      MAVEN_OPTS: `-Dmaven.repo.local=${dir('maven')}`,
      GRADLE_USER_HOME: dir('gradle'),
    }),
  },
};
