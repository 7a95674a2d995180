/**
 * A small JSON document on disk, validated by a zod schema: read once,
 * changed through `update()`, written atomically, updates serialised. A
 * missing file starts from `initial()`; a corrupt one is kept aside as
 * `<name>.corrupt-<time>` with a warning, and the document starts over.
 */
import { readFile, rename } from 'node:fs/promises';
import type * as z from 'zod';
import type { OpenDocument, StoredDocument } from '../core/stored-document.ts';
import type { Logger } from '../log/logger.ts';
import { writeFileAtomic } from './atomic.ts';

export class JsonFile<T> implements StoredDocument<T> {
  private cache: T | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly file: string,
    private readonly schema: z.ZodType<T>,
    private readonly initial: () => T,
    private readonly logger: Logger,
  ) {}

  async read(): Promise<T> {
    if (this.cache !== undefined) return this.cache;
    this.cache = await this.load();
    return this.cache;
  }

  /** Applies `change` to the current document and writes the result. */
  update(change: (current: T) => T): Promise<T> {
    const run = async () => {
      const next = this.schema.parse(change(await this.read()));
      await writeFileAtomic(this.file, `${JSON.stringify(next, null, 2)}\n`);
      this.cache = next;
      return next;
    };
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => undefined);
    return result;
  }

  private async load(): Promise<T> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return this.initial();
      throw error;
    }
    let problem: string;
    try {
      const parsed = this.schema.safeParse(JSON.parse(text));
      if (parsed.success) return parsed.data;
      problem = parsed.error.message;
    } catch (error) {
      problem = (error as Error).message;
    }
    const aside = `${this.file}.corrupt-${Date.now()}`;
    await rename(this.file, aside).catch(() => undefined);
    this.logger.warn('state file invalid, starting over', {
      file: this.file,
      keptAs: aside,
      error: problem,
    });
    return this.initial();
  }
}

/** The run's documents as JSON files (a corrupt one is kept aside, with a warning on `logger`). */
export function jsonDocuments(logger: Logger): OpenDocument {
  return (file, schema, initial) => new JsonFile(file, schema, initial, logger);
}
