// rsync's exclude patterns, as its manual describes them: a leading `/` anchors at the
// transfer root, a trailing `/` matches only folders, a pattern with a `/` (or `**`)
// matches the path's end at a folder boundary, one without matches the last name;
// `*` stays inside a name, `**` crosses folders, `?` is one character, `[…]` a class.

function toRegExpBody(glob) {
  let out = '';
  for (let i = 0; i < glob.length; i += 1) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      out += '.*';
      i += 1;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end < 0) out += '\\[';
      else {
        out += `[${glob
          .slice(i + 1, end)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else out += c.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return out;
}

/** One pattern as a test of a transfer-relative path (no leading `/`). */
export function compile(pattern) {
  const dirOnly = pattern.endsWith('/');
  let glob = dirOnly ? pattern.replace(/\/+$/, '') : pattern;
  const anchored = glob.startsWith('/');
  glob = glob.replace(/^\/+/, '');
  // unanchored: the last name, or (with a `/` inside) the path's end at a folder boundary
  const body = toRegExpBody(glob);
  const re = new RegExp(anchored ? `^${body}$` : `(^|/)${body}$`);
  return (rel, isDir) => (!dirOnly || isDir) && re.test(rel);
}

/** Every pattern at once: is this path (or a folder above it) excluded? */
export function excluder(patterns) {
  const tests = patterns.filter((p) => p !== '').map(compile);
  return (rel, isDir) => tests.some((test) => test(rel, isDir));
}
