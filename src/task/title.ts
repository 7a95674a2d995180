/** A task's title: the first line of its text, at most 72 characters. */
export function taskTitle(text: string): string {
  const firstLine = text.trim().split('\n')[0] ?? '';
  return firstLine.length > 72 ? `${firstLine.slice(0, 69)}...` : firstLine;
}
