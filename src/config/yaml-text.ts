import { parseDocument } from 'yaml';

/**
 * Reads YAML the user controls (`.mr-agent.yml`, Task YAML) into plain data,
 * never throwing: syntax errors come back with their line and column, and the
 * failures of turning the document into data come back as problems too —
 * anchors and aliases that expand past `MAX_ALIAS_COUNT` (a "billion laughs"
 * file) and nesting too deep to convert. Keys such as `__proto__` become own
 * properties (the yaml library never assigns prototypes).
 */
export const MAX_ALIAS_COUNT = 100;

export type YamlRead = { ok: true; value: unknown } | { ok: false; problems: string[] };

export function readYamlText(text: string, location: string): YamlRead {
  let doc;
  try {
    doc = parseDocument(text, { prettyErrors: true });
  } catch (error) {
    return { ok: false, problems: [`${location}: invalid YAML: ${firstLine(error)}`] };
  }
  if (doc.errors.length > 0) {
    return {
      ok: false,
      problems: doc.errors.map((error) => {
        const pos = error.linePos?.[0];
        return `${location}${pos ? `:${pos.line}:${pos.col}` : ''}: invalid YAML: ${firstLine(error)}`;
      }),
    };
  }
  try {
    return { ok: true, value: doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) as unknown };
  } catch (error) {
    if (error instanceof ReferenceError && /excessive alias count/i.test(error.message)) {
      return {
        ok: false,
        problems: [
          `${location}: YAML aliases expand too far (more than ${MAX_ALIAS_COUNT} references to anchored values); write the values out instead`,
        ],
      };
    }
    if (error instanceof RangeError) {
      return { ok: false, problems: [`${location}: YAML nested too deeply to read`] };
    }
    return { ok: false, problems: [`${location}: cannot read the YAML: ${firstLine(error)}`] };
  }
}

/** The message's first line, without the " at line 2, column 13:" the location prefix already says. */
function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const line = message.split('\n')[0] ?? '';
  return line.replace(/ at line \d+, column \d+:?$/, '').replace(/:$/, '');
}
