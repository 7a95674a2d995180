const SMALL_WORDS = new Set(['a', 'an', 'and', 'at', 'for', 'in', 'of', 'on', 'or', 'the', 'to']);

/** "the art of war" → "The Art of War": small words stay lower case except at the start. */
export function titleCase(text) {
  return text
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .map((word, i) =>
      i > 0 && SMALL_WORDS.has(word) ? word : word[0].toUpperCase() + word.slice(1),
    )
    .join(' ');
}
