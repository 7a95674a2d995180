import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { execa } from 'execa';
import { detectEnvironment } from '../../../src/phases/environment/detect-environment.ts';
import { javaVersionCheck } from '../../../src/phases/environment/kinds/java/analyze.ts';
import { gradleJdkRange, mavenRange } from '../../../src/phases/environment/kinds/java/range.ts';
import { rangeOf } from '../../../src/phases/environment/detect/versions.ts';
import type { EnvironmentDetection } from '../../../src/core/environment.ts';
import { tempRepo } from './support.ts';

/** Issue #20: the true JDK minimum and maximum, not the bytecode target (SPEC O12). */

let repo: ReturnType<typeof tempRepo> | undefined;
afterEach(() => repo?.cleanup());

async function detect(files: Record<string, string>): Promise<EnvironmentDetection> {
  repo = tempRepo(files);
  return detectEnvironment(repo.dir);
}

const range = (d: EnvironmentDetection) => rangeOf(true, d.versions);
const wrapper = (version: string) =>
  `distributionUrl=https\\://services.gradle.org/distributions/gradle-${version}-bin.zip\n`;
const RELEASE_8 = '<properties><maven.compiler.release>8</maven.compiler.release></properties>';

describe('issue #20 JDK range: minimum and maximum from what constrains the build', () => {
  it('O12 maven-enforcer requireJavaVersion [17,22) beats maven.compiler.release 8', async () => {
    const d = await detect({
      'pom.xml': `<project>${RELEASE_8}<build><plugins><plugin><artifactId>maven-enforcer-plugin</artifactId><executions><execution><configuration><rules><requireJavaVersion><version>[17,22)</version></requireJavaVersion></rules></configuration></execution></executions></plugin></plugins></build></project>`,
    });
    expect(range(d)).to.deep.equal({ minimum: '17', maximum: '21' });
    expect(d.verification[0]!.command).to.include('-ge 17').and.include('-le 21');
    const runtime = d.decisions.find((x) => x.topic === 'runtime_version')!;
    expect(runtime.choice).to.equal('java 17 to 21');
    expect(runtime.evidence[0]).to.deep.equal({
      file: 'pom.xml',
      line: 1,
      text: 'maven-enforcer requireJavaVersion [17,22)',
    });
  });

  it('O12 the Gradle wrapper sets the range: Gradle 9 needs 17+, Gradle 7.6 runs only up to 19', async () => {
    const nine = await detect({
      'build.gradle.kts': 'kotlin { compilerOptions { jvmTarget.set(JvmTarget.JVM_1_8) } }\n',
      gradlew: '#!/bin/sh\n',
      'gradle/wrapper/gradle-wrapper.properties': wrapper('9.0.0'),
    });
    expect(range(nine).minimum).to.equal('17');
    repo?.cleanup();
    const old = await detect({
      'build.gradle': 'sourceCompatibility = 1.8\n',
      gradlew: '#!/bin/sh\n',
      'gradle/wrapper/gradle-wrapper.properties': wrapper('7.6.4'),
    });
    expect(range(old)).to.deep.equal({ minimum: '8', maximum: '19' });
  });

  it('O12 a .mvn/jvm.config flag raises the minimum (--sun-misc-unsafe-memory-access needs 23)', async () => {
    const d = await detect({
      'pom.xml': `<project>${RELEASE_8}</project>`,
      '.mvn/jvm.config': '-Xmx2g --sun-misc-unsafe-memory-access=allow\n',
    });
    expect(range(d).minimum).to.equal('23');
    const refs = d.decisions.find((x) => x.topic === 'runtime_version')!.evidence;
    expect(refs).to.deep.include({
      file: '.mvn/jvm.config',
      line: 1,
      text: '--sun-misc-unsafe-memory-access=allow',
    });
  });

  it('O12 toolchains in build-logic name the JDK; without a resolver plugin it is exact', async () => {
    const conventions = {
      'settings.gradle.kts': 'includeBuild("build-logic")\ninclude(":app")\n',
      'build.gradle.kts': '',
      gradlew: '#!/bin/sh\n',
      'app/build.gradle.kts':
        'plugins { id("java-conventions") }\njava { targetCompatibility = JavaVersion.VERSION_1_8 }\n',
      'build-logic/src/main/kotlin/java-conventions.gradle.kts':
        'java {\n  toolchain {\n    languageVersion = JavaLanguageVersion.of(21)\n  }\n}\n',
    };
    const d = await detect(conventions);
    expect(range(d)).to.deep.equal({ minimum: '21', maximum: '21' });
    expect(d.candidates.find((c) => c.environment === 'java')!.projects).to.deep.equal(['.']);
    repo?.cleanup();
    const provisioned = await detect({
      ...conventions,
      'settings.gradle.kts':
        'plugins { id("org.gradle.toolchains.foojay-resolver-convention") version "0.8.0" }\ninclude(":app")\n',
    });
    expect(range(provisioned)).to.deep.equal({ minimum: '21' });
  });

  it('O12 a Maven toolchains profile, .java-version and CI setup-java count too', async () => {
    const profile = `<project>${RELEASE_8}<profiles><profile><id>jdk</id><build><plugins><plugin><artifactId>maven-toolchains-plugin</artifactId><configuration><toolchains><jdk><version>[11,)</version></jdk></toolchains></configuration></plugin></plugins></build></profile></profiles></project>`;
    expect(range(await detect({ 'pom.xml': profile })).minimum).to.equal('11');
    repo?.cleanup();
    expect(range(await detect({ 'pom.xml': profile, '.java-version': '17\n' })).minimum).to.equal(
      '17',
    );
    repo?.cleanup();
    const ci = await detect({
      'pom.xml': `<project>${RELEASE_8}</project>`,
      '.github/workflows/ci.yml':
        'jobs:\n  test:\n    strategy:\n      matrix:\n        java: [17, 21]\n    steps:\n      - uses: actions/setup-java@v4\n        with:\n          java-version: ${{ matrix.java }}\n      - run: mvn -B verify\n',
    });
    expect(range(ci).minimum).to.equal('17');
  });

  it('O12 Maven version ranges and the Gradle table', () => {
    expect(mavenRange('[17,22)')).to.deep.equal({ minimum: 17, maximum: 21 });
    expect(mavenRange('[1.8,)')).to.deep.equal({ minimum: 8 });
    expect(mavenRange('(,21]')).to.deep.equal({ maximum: 21 });
    expect(mavenRange('17')).to.deep.equal({ minimum: 17 });
    expect(gradleJdkRange('8.5')).to.deep.equal({ minimum: 8, maximum: 21 });
    expect(gradleJdkRange('8.14.3')).to.deep.equal({ minimum: 8, maximum: 24 });
    expect(gradleJdkRange('9.9.0')).to.deep.equal({ minimum: 17 });
  });
});

describe('issue #20 the JDK range check runs for real (sh, a stand-in java)', () => {
  /** A `java` that reports `version` the way `-XshowSettings:properties` does. */
  function fakeJava(version: string): string {
    repo = tempRepo();
    const bin = path.join(repo.dir, 'bin');
    mkdirSync(bin);
    writeFileSync(
      path.join(bin, 'java'),
      `#!/bin/sh\necho "Property settings:" >&2\necho "    java.specification.version = ${version}" >&2\n`,
    );
    chmodSync(path.join(bin, 'java'), 0o755);
    return bin;
  }

  const table: [string, string | undefined, string | undefined, string][] = [
    ['17', '17', '21', 'true'],
    ['21', '17', '21', 'true'],
    ['22', '17', '21', 'false'],
    ['1.8', '17', '21', 'false'],
    ['1.8', '8', undefined, 'true'],
    ['25', undefined, '19', 'false'],
  ];
  for (const [version, minimum, maximum, expected] of table) {
    it(`O12 java ${version} against ${minimum ?? '…'}–${maximum ?? '…'} → ${expected}`, async () => {
      const bin = fakeJava(version);
      const check = javaVersionCheck(minimum, maximum);
      const result = await execa('sh', ['-c', check.command], {
        env: { PATH: `${bin}:/usr/bin:/bin` },
        extendEnv: false,
      });
      expect(result.stdout).to.equal(expected);
      expect(check.expected_output).to.equal('true');
    });
  }
});
