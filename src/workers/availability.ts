import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../errors/errors.ts';
import type { CliWorkerSpec } from './spec.ts';

/** The first executable file named `binary` in the PATH of `env`, or undefined. */
export async function findOnPath(
  binary: string,
  env: Readonly<Record<string, string>>,
): Promise<string | undefined> {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, binary);
    try {
      await access(candidate, constants.X_OK);
      if ((await stat(candidate)).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

async function fileExists(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

/** How the worker authenticates, or undefined when no credential is visible to it. */
export async function findCredential(
  spec: CliWorkerSpec,
  env: Readonly<Record<string, string>>,
): Promise<string | undefined> {
  for (const names of spec.credentialEnv) {
    if (names.every((name) => (env[name] ?? '') !== '')) return `env ${names.join(' + ')}`;
  }
  for (const file of spec.credentialFiles(env)) {
    if (await fileExists(file)) return `file ${file}`;
  }
  return undefined;
}

/**
 * Checks that the worker CLI can run before any LLM call is spent: the
 * executable is on the worker's PATH and a credential is visible in the
 * worker's environment. Throws a ConfigError naming what is missing and how
 * to provide it; returns the executable path and the credential source.
 */
export async function checkWorkerAvailable(
  spec: CliWorkerSpec,
  env: Readonly<Record<string, string>>,
): Promise<{ executable: string; credential: string }> {
  const executable = await findOnPath(spec.binary, env);
  if (!executable) {
    throw new ConfigError(
      `the ${spec.kind} worker needs \`${spec.binary}\`, which is not on PATH`,
      {
        where: 'runner.worker.kind',
        problems: [`searched PATH=${env.PATH ?? '(unset)'}`],
        hint: `install it in the job image (${spec.install}), or set PATH under runner.worker.env to the folder that holds it.`,
      },
    );
  }
  const credential = await findCredential(spec, env);
  if (!credential) {
    const names = spec.credentialEnv.map((alt) => alt.join(' + ')).join(', ');
    throw new ConfigError(`the ${spec.kind} worker has no credential`, {
      where: 'runner.worker.env',
      problems: [
        `none of ${names} is set in the worker environment`,
        `no login file found (${spec.credentialFiles(env).join(', ')})`,
      ],
      hint: spec.credentialHint,
    });
  }
  return { executable, credential };
}
