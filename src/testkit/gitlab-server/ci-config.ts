/**
 * The little of a project's `.gitlab-ci.yml` the stand-in's trigger API needs:
 * the `spec: inputs:` header (GitLab refuses inputs the file does not declare)
 * and the pipeline's name from `workflow: name` after `workflow: rules`, with
 * the inputs interpolated and rule variables applied. Rule expressions support
 * `$VAR`, quoted strings, `==`, `!=`, `&&`, `||` and parentheses; anything else
 * is reported as unsupported rather than guessed.
 */
import { isMap, parseAllDocuments } from 'yaml';

export interface CiConfig {
  /** Declared input names with their defaults; undefined when the file has no header. */
  inputs: Record<string, unknown> | undefined;
  /** The pipeline document (the second one when there is a header). */
  body: Record<string, unknown>;
}

export function parseCiConfig(text: string): CiConfig {
  const docs = parseAllDocuments(text);
  const list = Array.isArray(docs) ? docs : [docs];
  const first = list[0]?.toJS() as Record<string, unknown> | null | undefined;
  const header = list.length > 1 && isMap(list[0]?.contents) ? first : undefined;
  const spec = header?.spec as
    { inputs?: Record<string, { default?: unknown } | null> } | undefined;
  const inputs = spec
    ? Object.fromEntries(Object.entries(spec.inputs ?? {}).map(([k, v]) => [k, v?.default]))
    : undefined;
  const body = ((header ? list[1] : list[0])?.toJS() ?? {}) as Record<string, unknown>;
  return { inputs, body };
}

export const NO_SPEC_MESSAGE =
  'Given inputs not defined in the `spec` section of the included configuration file';

/** GitLab's config error for inputs the file does not take, or undefined when they fit. */
export function inputsProblem(
  config: CiConfig,
  given: Record<string, unknown>,
): string | undefined {
  if (Object.keys(given).length === 0) return undefined;
  if (!config.inputs) return NO_SPEC_MESSAGE;
  const unknown = Object.keys(given).filter((name) => !(name in config.inputs!));
  return unknown.length > 0 ? `unknown input arguments: ${unknown.join(', ')}` : undefined;
}

/** `$[[ inputs.x ]]` replaced in every string of the document (as GitLab does, after parsing). */
function interpolate(value: unknown, inputs: Record<string, unknown>): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\[\[\s*inputs\.([\w-]+)\s*\]\]/g, (_, name: string) =>
      String(inputs[name] ?? ''),
    );
  }
  if (Array.isArray(value)) return value.map((v) => interpolate(v, inputs));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolate(v, inputs)]));
  }
  return value;
}

function expand(text: string, vars: Record<string, string>): string {
  return text.replace(/\$\{?(\w+)\}?/g, (_, name: string) => vars[name] ?? '');
}

type Token = { kind: 'var' | 'str' | 'op' | 'paren'; text: string };

function tokenize(expr: string): Token[] {
  const re = /\s*(?:\$(\w+)|"((?:[^"\\]|\\.)*)"|'([^']*)'|(==|!=|&&|\|\|)|([()]))/y;
  const text = expr.trim();
  const tokens: Token[] = [];
  while (re.lastIndex < text.length) {
    const at = re.lastIndex;
    const m = re.exec(text);
    if (!m) {
      throw new Error(
        `the stand-in cannot evaluate ${JSON.stringify(text.slice(at))} in the rule ${JSON.stringify(expr)}`,
      );
    }
    if (m[1] !== undefined) tokens.push({ kind: 'var', text: m[1] });
    else if (m[2] !== undefined || m[3] !== undefined)
      tokens.push({ kind: 'str', text: m[2] ?? m[3]! });
    else if (m[4]) tokens.push({ kind: 'op', text: m[4] });
    else tokens.push({ kind: 'paren', text: m[5]! });
  }
  return tokens;
}

/** Recursive descent over `or := and (|| and)*`, `and := cmp (&& cmp)*`, `cmp := atom ((==|!=) atom)?`. */
function evaluate(expr: string, vars: Record<string, string>): boolean {
  const tokens = tokenize(expr);
  let i = 0;
  const atom = (): string | boolean => {
    const t = tokens[i++];
    if (!t) throw new Error(`incomplete rule expression ${JSON.stringify(expr)}`);
    if (t.text === '(') {
      const inner = or();
      i += 1;
      return inner;
    }
    return t.kind === 'var' ? (vars[t.text] ?? '') : t.text;
  };
  const cmp = (): boolean => {
    const left = atom();
    const op = tokens[i];
    if (op?.text !== '==' && op?.text !== '!=')
      return typeof left === 'boolean' ? left : left !== '';
    i += 1;
    const equal = String(left) === String(atom());
    return op.text === '==' ? equal : !equal;
  };
  const and = (): boolean => {
    let value = cmp();
    while (tokens[i]?.text === '&&') {
      i += 1;
      value = cmp() && value; // cmp() first: it consumes its tokens
    }
    return value;
  };
  const or = (): boolean => {
    let value = and();
    while (tokens[i]?.text === '||') {
      i += 1;
      value = and() || value;
    }
    return value;
  };
  return or();
}

/** The name `workflow: name` gives the pipeline, or null (no name, or an empty one). */
export function pipelineName(
  config: CiConfig,
  given: { inputs: Record<string, unknown>; variables: Record<string, string> },
): string | null {
  const inputs = { ...(config.inputs ?? {}), ...given.inputs };
  const workflow = interpolate(config.body.workflow ?? {}, inputs) as {
    name?: string;
    rules?: { if?: string; variables?: Record<string, string> }[];
  };
  const vars = { ...given.variables };
  const rule = (workflow.rules ?? []).find((r) => r.if === undefined || evaluate(r.if, vars));
  for (const [k, v] of Object.entries(rule?.variables ?? {})) vars[k] = expand(String(v), vars);
  const name = workflow.name === undefined ? '' : expand(workflow.name, vars).trim();
  return name === '' ? null : name;
}
