import { UsageError } from '../../errors/errors.ts';

/** For sub-commands whose implementation has not landed: say so plainly, exit 2. */
export function notAvailableYet(command: string): never {
  throw new UsageError(`\`mr-agent ${command}\` is not available yet in this version`, {
    hint: 'see the README for what this release can do.',
  });
}
