import path from 'node:path';
import { configEntries, formatConfigText } from '../../config/describe.ts';
import { loadConfig } from '../../config/load.ts';
import type { CliIo } from '../io.ts';

export interface ConfigCheckOptions {
  repo?: string;
  set?: string[];
  json?: boolean;
}

/** `mr-agent config check`: the resolved configuration with each value's source. */
export async function configCheck(io: CliIo, options: ConfigCheckOptions): Promise<number> {
  const repoDir = path.resolve(io.cwd, options.repo ?? '.');
  const resolved = await loadConfig({ env: io.env, repoDir, sets: options.set ?? [] });
  const entries = configEntries(resolved);
  if (options.json) {
    io.stdout.write(`${JSON.stringify({ ok: true, options: entries }, null, 2)}\n`);
  } else {
    io.stdout.write(`${formatConfigText(entries)}\n\nconfiguration is valid\n`);
  }
  return 0;
}
