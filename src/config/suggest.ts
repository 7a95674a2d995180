/** "Did you mean …?" for a mistyped option name: the closest known key, if it is close enough. */
export function closestKey(key: string, known: Iterable<string>): string | undefined {
  const wanted = key.toLowerCase();
  const all = [...known];
  let best: { key: string; distance: number } | undefined;
  for (const candidate of all) {
    const distance = editDistance(wanted, candidate.toLowerCase());
    if (!best || distance < best.distance) best = { key: candidate, distance };
  }
  if (!best) return undefined;
  // a typo or two in the last part, the same name under another section, or a name cut short
  const lastPart = (k: string) => k.slice(k.lastIndexOf('.') + 1).toLowerCase();
  const limit = Math.max(1, Math.min(3, Math.floor(lastPart(key).length / 4)));
  if (best.distance <= limit) return best.key;
  const sameName = all.filter((k) => lastPart(k) === lastPart(key));
  if (sameName.length === 1) return sameName[0];
  // a name cut short: execution.command_timeout → execution.command_timeout_sec
  const longer = all.filter((k) => k.toLowerCase().startsWith(`${wanted}_`));
  return longer.length === 1 ? longer[0] : undefined;
}

/** Levenshtein distance with transpositions counted as one edit. */
export function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 3) return Math.abs(a.length - b.length);
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) rows.push([i]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i]!;
    const above = rows[i - 1]!;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(above[j]! + 1, row[j - 1]! + 1, above[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, rows[i - 2]![j - 2]! + 1);
      }
      row[j] = value;
    }
  }
  return rows[a.length]![b.length]!;
}
