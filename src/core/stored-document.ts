import type * as z from 'zod';

/** A small JSON document the run keeps in its state folder: read once, changed through `update`. */
export interface StoredDocument<T> {
  read(): Promise<T>;
  /** Applies `change` to the current document and keeps the result; updates run one at a time. */
  update(change: (current: T) => T): Promise<T>;
}

/**
 * Opens the document at `file`, checked by `schema`; a missing or invalid
 * one starts from `initial()`.
 */
export type OpenDocument = <T>(
  file: string,
  schema: z.ZodType<T>,
  initial: () => T,
) => StoredDocument<T>;

/** A task id made safe for a file name: only letters, digits, `.`, `_` and `-`, at most 100 chars. */
export function safeFileName(id: string): string {
  const cleaned = id.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_');
  return (cleaned || 'task').slice(0, 100);
}
