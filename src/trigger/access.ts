import type { ACCESS_LEVELS } from '../config/options.ts';

/** GitLab's numeric access levels (doc/api/members.md "Roles"). */
export const ACCESS_LEVEL_VALUES: Record<(typeof ACCESS_LEVELS)[number], number> = {
  guest: 10,
  reporter: 20,
  developer: 30,
  maintainer: 40,
  owner: 50,
};

export type AccessLevelName = keyof typeof ACCESS_LEVEL_VALUES;

export function accessLevelValue(name: AccessLevelName): number {
  return ACCESS_LEVEL_VALUES[name];
}

/** A readable name for a numeric level (for logs and replies). */
export function accessLevelName(value: number): string {
  if (value <= 0) return 'no access';
  const known = Object.entries(ACCESS_LEVEL_VALUES).filter(([, v]) => v <= value);
  return known.length > 0 ? known[known.length - 1]![0] : `level ${value}`;
}
