/**
 * User-written text quoted for an error message: JSON string syntax, with
 * every invisible or direction-changing character (zero-width, bidi
 * overrides, control characters, lone surrogates) written as `\uXXXX`, and
 * cut to `max` characters. So "simple\u200b" never looks like "simple", and a
 * value cannot reorder or forge the lines of the message around it.
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Co}\p{Zl}\p{Zp}\p{Cs}]/gu;

export function quoteVisible(text: string, max = 60): string {
  const chars = text.length > max ? [...text.slice(0, max * 2)] : [];
  const cut = chars.length > max ? `${chars.slice(0, max - 3).join('')}...` : text;
  return escapeInvisible(JSON.stringify(cut));
}

/** Writes invisible and direction-changing characters of `text` as `\uXXXX`. */
export function escapeInvisible(text: string): string {
  return text.replace(INVISIBLE, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
