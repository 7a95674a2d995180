/**
 * One redaction step for everything that leaves the process: log lines, note
 * bodies, artifacts, commit messages and LLM transcripts. A secret is
 * replaced in its plain, base64 and URL-encoded forms.
 */
export const MASK = '[MASKED]';

/** Variable names whose values are treated as secrets. */
const SECRET_NAME =
  /token|secret|password|passwd|pass$|key|auth|credential|cookie|private|session/i;
/** …unless the variable only names another variable (e.g. `MR_AGENT_LLM_API_KEY_VAR`). */
const NAMES_A_VARIABLE = /_(VAR|VARIABLE|NAME|FILE|PATH|URL)$/i;
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

function variants(secret: string): string[] {
  const forms = new Set([secret]);
  const b64 = Buffer.from(secret, 'utf8').toString('base64');
  forms.add(b64);
  forms.add(b64.replace(/=+$/, ''));
  forms.add(Buffer.from(secret, 'utf8').toString('base64url'));
  forms.add(encodeURIComponent(secret));
  return [...forms].filter((f) => f.length >= MIN_SECRET_LENGTH);
}

export class Redactor {
  private readonly secrets = new Set<string>();
  private pattern: RegExp | undefined;

  /** Registers a secret value; empty and very short values are ignored. */
  add(secret: string | undefined | null): void {
    if (!secret) return;
    const value = secret.trim();
    if (value.length < MIN_SECRET_LENGTH || NOT_SECRET_VALUES.has(value.toLowerCase())) return;
    for (const form of variants(value)) this.secrets.add(form);
    this.pattern = undefined;
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

  redact(text: string): string {
    if (this.secrets.size === 0 || text.length === 0) return text;
    this.pattern ??= new RegExp(
      [...this.secrets]
        .sort((a, b) => b.length - a.length)
        .map(escapeRegExp)
        .join('|'),
      'g',
    );
    return text.replace(this.pattern, MASK);
  }

  /** Redacts every string inside a JSON-like value, returning a copy. */
  redactValue<T>(value: T): T {
    if (this.secrets.size === 0) return value;
    return JSON.parse(this.redact(JSON.stringify(value) ?? 'null')) as T;
  }
}
