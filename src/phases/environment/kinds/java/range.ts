import type { EvidenceRef, VersionPin } from '../../../../core/environment.ts';

/**
 * The JDK range a Java build really needs, from what constrains it: the
 * maven-enforcer `requireJavaVersion` rule, toolchains (Maven's plugin, the
 * compiler's `jdkToolchain`, Gradle's `JavaLanguageVersion.of`/`jvmToolchain`,
 * also in `buildSrc/` and `build-logic/`), `.mvn/jvm.config` flags, the
 * Gradle and Maven wrappers' own JDK ranges, `.java-version`, and CI's
 * set-up. The bytecode target (`release 8`, `jvmTarget 1.8`) is only a floor.
 */
export interface JdkBound {
  pin: VersionPin;
  ref: EvidenceRef;
}

/** Line (1-based) of the first line of `text` matching `pattern`, 0 if none. */
export function lineMatching(text: string, pattern: RegExp): number {
  return text.split(/\r?\n/).findIndex((l) => pattern.test(l)) + 1;
}

const major = (version: string): number | undefined => {
  const parts = /(\d+)(?:\.(\d+))?/.exec(version);
  if (!parts) return undefined;
  return parts[1] === '1' && parts[2] ? Number(parts[2]) : Number(parts[1]);
};

/**
 * A Maven version range (`[17,22)`, `[1.8,)`, `(,21]`) or a plain version
 * (`17`: enforcer reads it as "17 or newer") as major JDK versions.
 */
export function mavenRange(spec: string): { minimum?: number; maximum?: number } {
  const text = spec.trim();
  const range = /^([[(])\s*([^,]*?)\s*,\s*([^\])]*?)\s*([\])])$/.exec(text);
  if (!range) {
    const only = major(text);
    return only === undefined ? {} : { minimum: only };
  }
  const [, open, low, high, close] = range;
  const result: { minimum?: number; maximum?: number } = {};
  const lowMajor = low ? major(low) : undefined;
  if (lowMajor !== undefined) result.minimum = open === '(' ? lowMajor + 1 : lowMajor;
  if (high) {
    const highMajor = major(high);
    // `22)` excludes 22 itself; `21.99]` or `21]` includes 21
    const bare = /^\d+(?:\.0+)*$/.test(high.replace(/^1\./, ''));
    if (highMajor !== undefined) result.maximum = close === ')' && bare ? highMajor - 1 : highMajor;
  }
  return result;
}

function bound(
  spec: string,
  range: { minimum?: number; maximum?: number },
  source: string,
  ref: EvidenceRef,
): JdkBound | undefined {
  if (range.minimum === undefined && range.maximum === undefined) return undefined;
  const pin: VersionPin = { language: 'java', spec, source };
  if (range.minimum !== undefined) pin.minimum = String(range.minimum);
  if (range.maximum !== undefined) pin.maximum = String(range.maximum);
  return { pin, ref };
}

/** `java -version` options in `.mvn/jvm.config` and the first JDK that accepts them (the JVM refuses unknown options). */
const JVM_FLAGS: [RegExp, number][] = [
  [/^--sun-misc-unsafe-memory-access\b/, 23],
  [/^-XX:[+-]UseCompactObjectHeaders\b/, 24],
  [/^--enable-final-field-mutation\b/, 26],
  [/^-XX:[+-]ZGenerational\b/, 21],
  [/^-XX:[+-]EnableDynamicAgentLoading\b/, 21],
  [/^--enable-native-access\b/, 17],
  [/^--add-(?:opens|exports|modules|reads)\b/, 9],
];

export function jvmConfigBounds(file: string, text: string): JdkBound[] {
  const found: JdkBound[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    for (const word of line.trim().split(/\s+/)) {
      const flag = JVM_FLAGS.find(([pattern]) => pattern.test(word));
      if (!flag) continue;
      const hit = bound(word, { minimum: flag[1] }, `${file} ${word}`, {
        file,
        line: index + 1,
        text: word,
      });
      if (hit) found.push(hit);
    }
  });
  // only the strictest flag matters
  const strictest = found.sort((a, b) => Number(b.pin.minimum) - Number(a.pin.minimum))[0];
  return strictest ? [strictest] : [];
}

/**
 * First Gradle version that runs on each JDK (Gradle's compatibility matrix,
 * "support for running Gradle"). Gradle 9 needs JDK 17; Gradle 5–8 need 8.
 */
const GRADLE_RUNS_ON: [number, string][] = [
  [8, '2.0'],
  [9, '4.3'],
  [10, '4.7'],
  [11, '5.0'],
  [12, '5.4'],
  [13, '6.0'],
  [14, '6.3'],
  [15, '6.7'],
  [16, '7.0'],
  [17, '7.3'],
  [18, '7.5'],
  [19, '7.6'],
  [20, '8.3'],
  [21, '8.5'],
  [22, '8.8'],
  [23, '8.10'],
  [24, '8.14'],
  [25, '9.1'],
  [26, '9.4'],
];

const numbers = (v: string) => v.split('.').map(Number);
function atLeast(version: string, floor: string): boolean {
  const a = numbers(version);
  const b = numbers(floor);
  for (let i = 0; i < Math.max(a.length, b.length); i += 1) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d > 0;
  }
  return true;
}

/** The JDK range that runs a Gradle version; no maximum for versions newer than the table knows. */
export function gradleJdkRange(version: string): { minimum?: number; maximum?: number } {
  const range: { minimum?: number; maximum?: number } = {};
  if (atLeast(version, '9.0')) range.minimum = 17;
  else if (atLeast(version, '5.0')) range.minimum = 8;
  const newest = GRADLE_RUNS_ON[GRADLE_RUNS_ON.length - 1]!;
  if (!atLeast(version, newest[1])) {
    const supported = GRADLE_RUNS_ON.filter(([, first]) => atLeast(version, first));
    const last = supported[supported.length - 1];
    if (last) range.maximum = last[0];
  }
  return range;
}

/** `distributionUrl=…/gradle-8.5-bin.zip` or `…/apache-maven-4.0.0-bin.zip` in a wrapper's properties. */
export function wrapperBounds(file: string, text: string): JdkBound[] {
  const line = lineMatching(text, /^\s*distributionUrl\s*=/);
  const url = line ? text.split(/\r?\n/)[line - 1]! : '';
  const ref = { file, line, text: url.trim().replace(/^.*\//, 'distributionUrl=…/') };
  const gradle = /gradle-(\d+(?:\.\d+)+)(?:-[\w.]+)?-(?:bin|all)\.zip/.exec(url)?.[1];
  if (gradle) {
    const hit = bound(
      `Gradle ${gradle}`,
      gradleJdkRange(gradle),
      `${file} (Gradle ${gradle})`,
      ref,
    );
    return hit ? [hit] : [];
  }
  const maven = /apache-maven-(\d+(?:\.\d+)+)/.exec(url)?.[1];
  if (maven && atLeast(maven, '4.0')) {
    const hit = bound(`Maven ${maven}`, { minimum: 17 }, `${file} (Maven ${maven})`, ref);
    return hit ? [hit] : [];
  }
  return [];
}

/** Gradle toolchains: `JavaLanguageVersion.of(17)`, `jvmToolchain(17)`; the build compiles and tests with that JDK. */
export function gradleToolchainBounds(
  file: string,
  text: string,
  provisioned: boolean,
): JdkBound[] {
  const pattern = /JavaLanguageVersion\.of\(\s*(\d+)\s*\)|jvmToolchain\(\s*(\d+)\s*\)/;
  const line = lineMatching(text, pattern);
  if (!line) return [];
  const match = pattern.exec(text.split(/\r?\n/)[line - 1]!)!;
  const version = Number(match[1] ?? match[2]);
  // without a toolchain resolver plugin Gradle cannot download that JDK: it must be the installed one
  const range = provisioned ? { minimum: version } : { minimum: version, maximum: version };
  const hit = bound(match[0], range, `${file} toolchain ${match[0]}`, {
    file,
    line,
    text: match[0],
  });
  return hit ? [hit] : [];
}

/** `.java-version` (jenv): the JDK the maintainers use. */
export function javaVersionFileBound(file: string, text: string): JdkBound[] {
  const first =
    text
      .split(/\r?\n/)
      .find((l) => l.trim() && !l.startsWith('#'))
      ?.trim() ?? '';
  const version = major(first);
  const hit =
    version === undefined
      ? undefined
      : bound(first, { minimum: version }, file, { file, line: 1, text: first });
  return hit ? [hit] : [];
}

/** The JDKs the README or CONTRIBUTING says the build needs: the lowest is the documented floor. */
export function documentedBounds(
  runtimes: { versions: string[]; file: string; line: number; text: string }[],
): JdkBound[] {
  return ciBounds(runtimes).map((b) => ({
    ...b,
    pin: { ...b.pin, source: b.pin.source.replace(/ CI$/, ' docs') },
  }));
}

/** CI's `setup-java`/images: the lowest JDK CI builds with is the floor the maintainers test. */
export function ciBounds(
  runtimes: { versions: string[]; file: string; line: number; text: string }[],
): JdkBound[] {
  const versions = runtimes.flatMap((r) => r.versions.map((v) => ({ version: major(v), ref: r })));
  const lowest = versions
    .filter(
      (v): v is { version: number; ref: (typeof runtimes)[number] } => v.version !== undefined,
    )
    .sort((a, b) => a.version - b.version)[0];
  if (!lowest) return [];
  const { file, line, text } = lowest.ref;
  const hit = bound(text, { minimum: lowest.version }, `${file}:${line} CI`, { file, line, text });
  return hit ? [hit] : [];
}
