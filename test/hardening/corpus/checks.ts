import { expect } from 'chai';

/**
 * The checks every corpus case shares: a message a user can act on (never an
 * "internal error", never a stack trace), no unhandled rejection, and no
 * property added to Object.prototype.
 */
const STACK_FRAME = /^\s*at\s+(?:.+\s\()?(?:file:|node:|\/|[A-Za-z]:\\).*:\d+(?::\d+)?\)?\s*$/m;

/** Characters that must be escaped before they reach a terminal or a note (NUL, ESC, bidi overrides). */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f\u202a-\u202e\u2066-\u2069]/;

export function hasStackTrace(text: string): boolean {
  return STACK_FRAME.test(text);
}

/** A clear error: non-empty, not an internal error, no stack, naming every `match`. */
export function expectCleanMessage(text: string, matches: readonly string[], what: string): void {
  expect(text.trim(), `${what} is empty`).to.not.equal('');
  expect(text, `${what} reports an internal error`).to.not.match(/internal error/i);
  expect(hasStackTrace(text), `${what} holds a stack trace:\n${text.slice(0, 2000)}`).to.equal(
    false,
  );
  const raw = RAW_CONTROL.exec(text);
  expect(
    raw?.[0],
    `${what} holds a raw control or bidi character at ${raw?.index}: ${JSON.stringify(text.slice(0, 300))}`,
  ).to.equal(undefined);
  for (const needle of matches) {
    expect(text, `${what} should name ${JSON.stringify(needle)}`).to.include(needle);
  }
}

/** Collects unhandled rejections and uncaught exceptions while installed. */
export class CrashWatch {
  readonly rejections: unknown[] = [];
  private readonly onRejection = (reason: unknown) => this.rejections.push(reason);

  install(): void {
    process.on('unhandledRejection', this.onRejection);
  }

  uninstall(): void {
    process.off('unhandledRejection', this.onRejection);
  }

  /** Lets pending promise callbacks settle, then fails if anything was left unhandled. */
  async expectNone(what: string): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    const found = this.rejections.splice(0);
    expect(
      found.map((r) => (r instanceof Error ? r.message : String(r))),
      `${what}: unhandled rejections`,
    ).to.deep.equal([]);
  }
}

const PROTOTYPE_KEYS = Object.getOwnPropertyNames(Object.prototype).sort();

/** Fails when a case added anything to Object.prototype (prototype pollution). */
export function expectPrototypeIntact(what: string): void {
  expect(Object.getOwnPropertyNames(Object.prototype).sort(), what).to.deep.equal(PROTOTYPE_KEYS);
  expect(({} as Record<string, unknown>)['polluted'], what).to.equal(undefined);
}
