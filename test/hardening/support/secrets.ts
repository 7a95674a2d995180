/**
 * Known secret values for the hardening suites and a scanner that finds them
 * in any text: plain, URL-encoded, hex, and base64 at every byte alignment
 * (so a secret inside `base64("oauth2:" + token)`, as in a Basic-auth header,
 * is found too).
 */
export const SECRETS = {
  gitlabToken: 'glpat-HARDEN-gitlab-7f3a9c2e5b1d8f40',
  llmKey: 'sk-harden-llm-4c8e1a7b9d2f6e30',
  webhookSecret: 'whsec-harden-6b2d9f1e4a7c3e85',
  triggerToken: 'glptt-harden-trigger-1e5a8c3f7b9d',
  jobToken: 'glcbt-harden-job-9a4f2c7e1b6d8e53',
  /** Named only through MR_AGENT_SECRET_VARIABLES (its name does not look secret). */
  customSecret: 'harden-custom-dsn-5e9b3a1f7c2d',
} as const;

export const CUSTOM_SECRET_NAME = 'WAREHOUSE_DSN';

/** The CI variables of a job with every secret set (GitLab predefined names included). */
export function secretEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    MR_AGENT_GITLAB_TOKEN: SECRETS.gitlabToken,
    OPENAI_API_KEY: SECRETS.llmKey,
    MR_AGENT_WEBHOOK_SECRET: SECRETS.webhookSecret,
    MR_AGENT_TRIGGER_TOKEN: SECRETS.triggerToken,
    CI_JOB_TOKEN: SECRETS.jobToken,
    CI_REGISTRY_PASSWORD: SECRETS.jobToken,
    CI_REPOSITORY_URL: `https://gitlab-ci-token:${SECRETS.jobToken}@gitlab.example/acme/app.git`,
    [CUSTOM_SECRET_NAME]: SECRETS.customSecret,
    MR_AGENT_SECRET_VARIABLES: CUSTOM_SECRET_NAME,
    ...extra,
  };
}

/** Substrings that any base64 text holding `secret` at some byte offset must contain. */
function base64Cores(secret: string): string[] {
  const cores: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    for (const alphabet of ['base64', 'base64url'] as const) {
      const encoded = Buffer.from(`${'\0'.repeat(offset)}${secret}`, 'utf8').toString(alphabet);
      // drop the characters that mix in the bytes before and after the secret
      const start = Math.ceil((offset * 4) / 3);
      const end = encoded.replace(/=+$/, '').length - 3;
      cores.push(encoded.slice(start + 1, end));
    }
  }
  return cores.filter((core) => core.length >= 12);
}

export interface SecretForm {
  name: string;
  form: string;
  text: string;
}

function formsOf(name: string, secret: string): SecretForm[] {
  const hex = Buffer.from(secret, 'utf8').toString('hex');
  return [
    { name, form: 'plain', text: secret },
    { name, form: 'url-encoded', text: encodeURIComponent(secret) },
    { name, form: 'hex', text: hex },
    ...base64Cores(secret).map((text) => ({ name, form: 'base64', text })),
  ];
}

export const SECRET_FORMS: readonly SecretForm[] = Object.entries(SECRETS).flatMap(
  ([name, value]) => formsOf(name, value),
);

export interface Hit {
  where: string;
  secret: string;
  form: string;
}

/** Scans labelled texts for every secret form and counts what it scanned. */
export class SecretScanner {
  readonly hits: Hit[] = [];
  private readonly counts = new Map<string, { items: number; bytes: number }>();

  scan(kind: string, where: string, text: string | Uint8Array): void {
    const value = typeof text === 'string' ? text : Buffer.from(text).toString('latin1');
    const count = this.counts.get(kind) ?? { items: 0, bytes: 0 };
    count.items++;
    count.bytes += value.length;
    this.counts.set(kind, count);
    for (const form of SECRET_FORMS) {
      if (value.includes(form.text)) this.hits.push({ where, secret: form.name, form: form.form });
    }
  }

  /** `notes: 12 items, 34.5 KB` lines, by kind. */
  summary(): string[] {
    return [...this.counts].map(
      ([kind, c]) =>
        `${kind.padEnd(26)} ${String(c.items).padStart(5)} items  ${(c.bytes / 1024).toFixed(1).padStart(9)} KB`,
    );
  }

  get items(): number {
    return [...this.counts.values()].reduce((sum, c) => sum + c.items, 0);
  }
}
