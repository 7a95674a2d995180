/** The host name of a URL or `host:port` setting, in lower case; undefined when there is none. */
export function hostOf(value: string): string | undefined {
  const text = value.trim();
  if (!text) return undefined;
  try {
    const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`);
    return url.hostname.replace(/^\[|\]$/g, '').toLowerCase() || undefined;
  } catch {
    return undefined;
  }
}

/** The hosts the variables whose names match `names` (tested in lower case) point at. */
export function hostsOfVariables(
  env: Readonly<Record<string, string | undefined>>,
  names: RegExp,
): string[] {
  return Object.entries(env)
    .filter(([name, value]) => value && names.test(name.toLowerCase()))
    .flatMap(([, value]) => hostOf(value!) ?? []);
}
