import type { ConfigSource } from './resolve.ts';
import { dataSource } from './sources.ts';
import { readYamlText } from './yaml-text.ts';

/**
 * `.mr-agent.yml` (or any YAML text) as a source. Its own module, loaded
 * when there is a file to read: the YAML library is a tenth of what a job
 * loads before its first GitLab request otherwise.
 */
export function fileSource(text: string, location: string): ConfigSource {
  const read = readYamlText(text, location);
  if (!read.ok) return { kind: 'file', location, values: new Map(), problems: read.problems };
  return dataSource(read.value, location);
}
