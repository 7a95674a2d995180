/**
 * One redaction step for everything that leaves the process: log lines, note
 * bodies, artifacts, commit messages and LLM transcripts. A secret is
 * replaced in every form a command or a model may turn it into (`variants`),
 * and `findSecret` tells a write that must be blocked rather than masked (a
 * staged tree, a commit).
 */
export const MASK = '[MASKED]';

/** Variable names whose values are treated as secrets. */
const SECRET_NAME =
  /token|secret|password|passwd|pass$|key|auth|credential|cookie|private|session/i;
/** …unless the variable only names another variable (e.g. `MR_AGENT_LLM_API_KEY_VAR`). */
const NAMES_A_VARIABLE = /_(VARS?|VARIABLES?|NAMES?|FILES?|PATHS?|URLS?)$/i;
/** …or it is a cache key (the component's `cache_key` input, `MR_AGENT_CACHE_KEY=mr-agent`). */
const CACHE_KEY = /(^|_)CACHE_KEY$/i;
/** Values shorter than this are too common to mask without mangling text. */
const MIN_SECRET_LENGTH = 6;
const NOT_SECRET_VALUES = new Set(['true', 'false', 'null', 'undefined']);

export function looksLikeSecretName(name: string): boolean {
  return SECRET_NAME.test(name) && !NAMES_A_VARIABLE.test(name) && !CACHE_KEY.test(name);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Derived forms shorter than this are not masked: they would match ordinary text. */
const MIN_FORM_LENGTH = 8;

function reversed(text: string): string {
  return [...text].reverse().join('');
}

/**
 * The base64 (and base64url) text of `bytes` wherever they sit in a larger
 * encoded blob: for each of the three byte offsets, the encoding of the whole
 * 3-byte groups that only hold the secret's bytes, which is the same whatever
 * surrounds it.
 */
function base64Forms(bytes: Buffer): string[] {
  const forms: string[] = [];
  for (let shift = 0; shift < 3; shift++) {
    const inner = bytes.subarray(shift);
    const aligned = inner.subarray(0, inner.length - (inner.length % 3));
    if (aligned.length === 0) continue;
    forms.push(aligned.toString('base64'), aligned.toString('base64url'));
  }
  const whole = bytes.toString('base64');
  forms.push(whole, whole.replace(/=+$/, ''), bytes.toString('base64url'));
  return forms;
}

/** The forms of one text: plain, base64 at every offset, base64url, hex, URL- and JSON-escaped. */
function encodedForms(text: string): string[] {
  const bytes = Buffer.from(text, 'utf8');
  const hex = bytes.toString('hex');
  return [
    text,
    ...base64Forms(bytes),
    hex,
    hex.toUpperCase(),
    reversed(hex),
    encodeURIComponent(text),
    JSON.stringify(text).slice(1, -1),
  ];
}

/**
 * Every form a secret is masked in (docs/security.md, "Secrets in what leaves
 * the process"): plain, base64 at each of the
 * three offsets, base64url, hex (either case), reversed, URL-encoded and
 * JSON-escaped, and the same of the reversed secret.
 */
function variants(secret: string): string[] {
  const forms = new Set<string>([secret]);
  for (const base of [secret, reversed(secret)])
    for (const form of encodedForms(base)) forms.add(form);
  return [...forms].filter((f) => f === secret || f.length >= MIN_FORM_LENGTH);
}

export class Redactor {
  private readonly secrets = new Set<string>();
  private readonly plainValues = new Set<string>();
  private pattern: RegExp | undefined;

  /** Registers a secret value; empty and very short values are ignored. */
  add(secret: string | undefined | null): void {
    if (!secret) return;
    const value = secret.trim();
    if (value.length < MIN_SECRET_LENGTH || NOT_SECRET_VALUES.has(value.toLowerCase())) return;
    this.plainValues.add(value);
    for (const form of variants(value)) this.secrets.add(form);
    this.pattern = undefined;
  }

  /** The registered secret values as given (for scans that derive forms of their own). */
  get values(): readonly string[] {
    return [...this.plainValues];
  }

  /** Registers the values of every variable whose name looks secret. */
  addFromEnv(
    env: Readonly<Record<string, string | undefined>>,
    extraNames: readonly string[] = [],
  ): void {
    const extra = new Set(extraNames);
    for (const [name, value] of Object.entries(env)) {
      if (looksLikeSecretName(name) || extra.has(name)) this.add(value);
    }
  }

  get size(): number {
    return this.secrets.size;
  }

  private get matcher(): RegExp {
    this.pattern ??= new RegExp(
      [...this.secrets]
        .sort((a, b) => b.length - a.length)
        .map(escapeRegExp)
        .join('|'),
      'g',
    );
    return this.pattern;
  }

  redact(text: string): string {
    if (this.secrets.size === 0 || text.length === 0) return text;
    return text.replace(this.matcher, MASK);
  }

  /** Whether the text holds a secret in any of its forms (for writes that must be refused). */
  findSecret(text: string): boolean {
    if (this.secrets.size === 0 || text.length === 0) return false;
    const matcher = this.matcher;
    matcher.lastIndex = 0;
    const found = matcher.test(text);
    matcher.lastIndex = 0;
    return found;
  }

  /** Redacts every string inside a JSON-like value, returning a copy. */
  redactValue<T>(value: T): T {
    if (this.secrets.size === 0) return value;
    return JSON.parse(this.redact(JSON.stringify(value) ?? 'null')) as T;
  }
}
