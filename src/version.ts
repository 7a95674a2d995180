/** Replaced at bundle time; read from package.json when running from source. */
import pkg from '../package.json' with { type: 'json' };

export const VERSION: string = pkg.version;
