import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import {
  configEntries,
  formatConfigText,
  refusedUserSettings,
  refusedUserSettingsLine,
} from '../../config/describe.ts';
import { CONFIG_FILE, loadConfig } from '../../config/load.ts';
import { UsageError } from '../../errors/errors.ts';
import type { CliIo } from '../io.ts';

export interface ConfigCheckOptions {
  repo?: string;
  set?: string[];
  json?: boolean;
}

/** `mr-agent config check`: the resolved configuration with each value's source. */
export async function configCheck(io: CliIo, options: ConfigCheckOptions): Promise<number> {
  const repoDir = path.resolve(io.cwd, options.repo ?? '.');
  const isFolder = await stat(repoDir).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!isFolder) {
    throw new UsageError('not a folder', {
      where: `--repo ${options.repo ?? '.'}`,
      hint: `give the folder holding ${CONFIG_FILE}${path.isAbsolute(options.repo ?? '.') ? '' : ` (a relative path is resolved from ${io.cwd})`}.`,
    });
  }
  const resolved = await loadConfig({ env: io.env, repoDir, sets: options.set ?? [] });
  const entries = configEntries(resolved);
  if (options.json) {
    const refused = refusedUserSettings(resolved);
    const report = {
      ok: true,
      options: entries,
      ...(refused.length > 0 ? { refusedUserSettings: refused } : {}),
    };
    io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    const noFile = existsSync(path.join(repoDir, CONFIG_FILE))
      ? ''
      : `\n(no ${CONFIG_FILE} in ${repoDir}: defaults, environment and --set only)`;
    const refused = refusedUserSettingsLine(resolved);
    const refusedNote = refused ? `\n${refused}` : '';
    io.stdout.write(
      `${formatConfigText(entries)}\n${noFile}${refusedNote}\nconfiguration is valid\n`,
    );
  }
  return 0;
}
