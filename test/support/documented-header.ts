import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The `.gitlab-ci.yml` header and job rules docs/ci-component.md shows
 * ("Requests as pipeline inputs"), as the page has them: the component and
 * bridge tests run exactly what a user copies (#21).
 */
const DOC = path.resolve(import.meta.dirname, '../../docs/ci-component.md');

function yamlBlockAfter(marker: string): string {
  const doc = readFileSync(DOC, 'utf8');
  const at = doc.indexOf(marker);
  if (at < 0) throw new Error(`docs/ci-component.md no longer has "${marker}"`);
  return /```yaml\n([\s\S]*?)```/.exec(doc.slice(at))![1]!;
}

/** The header: `spec: inputs:`, the component include and the workflow rules. */
export function documentedHeader(): string {
  return yamlBlockAfter('<!-- the header test/component/adoption.test.ts runs');
}

/** The rules that keep one's own jobs out of agent pipelines, with an example job. */
export function documentedJobRules(): string {
  return yamlBlockAfter('### Keeping your own jobs out of agent pipelines');
}
