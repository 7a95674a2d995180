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
