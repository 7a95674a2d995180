/**
 * GitLab's role numbers (members API `access_level`, doc/api/members.md
 * "Roles") and their names — the one table mr-agent uses for them.
 */
export const ACCESS_LEVEL = {
  'no access': 0,
  'minimal access': 5,
  guest: 10,
  planner: 15,
  reporter: 20,
  developer: 30,
  maintainer: 40,
  owner: 50,
} as const;

export type AccessLevelName = keyof typeof ACCESS_LEVEL;

const BY_LEVEL = (Object.entries(ACCESS_LEVEL) as [AccessLevelName, number][]).sort(
  (a, b) => b[1] - a[1],
);

/** The role a number stands for; a number between two roles gets the one below it. */
export function accessLevelName(level: number): AccessLevelName {
  return BY_LEVEL.find(([, value]) => value <= level)?.[0] ?? 'no access';
}

/** What a user with `level` has, for messages: `has the developer role`, `has no access`. */
export function roleOf(level: number): string {
  const name = accessLevelName(level);
  return name === 'no access' ? 'has no access' : `has the ${name} role`;
}
