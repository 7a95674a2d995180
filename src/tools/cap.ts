/**
 * Caps text for the model (K4): keeps the head and the tail, with a marker
 * saying how much was cut in between.
 */
export function capText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const marker = (cut: number) => `\n…[${cut} characters cut]…\n`;
  const budget = Math.max(0, maxChars - marker(text.length).length);
  const head = Math.floor(budget / 4);
  const tail = budget - head;
  const cut = text.length - head - tail;
  return `${text.slice(0, head)}${marker(cut)}${text.slice(text.length - tail)}`;
}
