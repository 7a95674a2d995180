import { cutText } from '../core/text.ts';

/**
 * Caps text for the model, so every prompt stays bounded: keeps the head and
 * the tail, with a marker
 * saying how much was cut in between; at most `maxChars` in all.
 */
export function capText(text: string, maxChars: number): string {
  return cutText(text, maxChars, { keep: 'both' });
}
