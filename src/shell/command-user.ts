/**
 * Which unprivileged user runs the commands (docs/security.md, "Commands run
 * as another user"): a name from `/etc/passwd` or `uid:gid`. The default name, `agent` (the images'
 * user), falls back to `nobody` (65534) where it does not exist.
 */
export interface CommandUserId {
  name: string;
  uid: number;
  gid: number;
}

export const DEFAULT_COMMAND_USER = 'agent';
const NOBODY: CommandUserId = { name: 'nobody', uid: 65534, gid: 65534 };

function fromPasswd(passwd: string, name: string): CommandUserId | undefined {
  for (const line of passwd.split('\n')) {
    const [user, , uid, gid] = line.split(':');
    if (user !== name || uid === undefined || gid === undefined) continue;
    if (!/^\d+$/.test(uid) || !/^\d+$/.test(gid)) return undefined;
    return { name, uid: Number(uid), gid: Number(gid) };
  }
  return undefined;
}

/** The user for `security.command_user`, or why there is none. */
export function chooseCommandUser(
  spec: string,
  passwd: string,
): { user: CommandUserId } | { error: string } {
  const numeric = /^(\d+):(\d+)$/.exec(spec.trim());
  const user = numeric
    ? { name: spec.trim(), uid: Number(numeric[1]), gid: Number(numeric[2]) }
    : (fromPasswd(passwd, spec.trim()) ??
      (spec.trim() === DEFAULT_COMMAND_USER ? NOBODY : undefined));
  if (!user) return { error: `security.command_user "${spec}" is not a user of /etc/passwd` };
  if (user.uid === 0 || user.gid === 0)
    return { error: `security.command_user "${spec}" is root (uid or gid 0)` };
  return { user };
}
