/**
 * What the note registry (`registry.ts`) knows of a note kind: its name and
 * the texts only it uses. Each note file declares its own definition beside
 * its renderer; the renderer reads those texts, with the shared catalog's,
 * through `voiceOf(…, definition.messages)`.
 */
import type { MessageBlock } from '../messages/catalog.ts';

export interface NoteDefinition<K extends string = string> {
  /** The note's name in the registry, the gallery (test/golden/notes/) and docs/notes.md. */
  readonly name: string;
  /** What the note is for, in a line (listed in docs/notes.md). */
  readonly purpose: string;
  /** Its own texts in every language (keys prefixed by the note, e.g. `patch.`). */
  readonly messages: MessageBlock<K>;
}

/** Declares a note kind; its name stays a literal type, so the gallery can be keyed by it. */
export function defineNote<const N extends string, K extends string>(
  definition: NoteDefinition<K> & { readonly name: N },
): NoteDefinition<K> & { readonly name: N } {
  return definition;
}
