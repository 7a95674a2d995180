/** Quotes one word for `sh -c`: plain words stay as they are, others go in single quotes. */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_./:=@%+,-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A command line of words, each quoted for `sh -c`. */
export function shellLine(words: readonly string[]): string {
  return words.map(shellQuote).join(' ');
}
