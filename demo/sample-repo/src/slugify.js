/**
 * Turns an article title into the last part of its URL:
 * "Hello, World!" → "hello-world".
 */
export function slugify(title) {
  return title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .trim()
    .replace(/\s+/g, '-');
}
