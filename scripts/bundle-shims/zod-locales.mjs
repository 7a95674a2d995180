// What the bundle gives for zod's locale index (`z.locales`, `z.core.locales`):
// English, the one zod's classic API configures and mr-agent's messages use.
// The index re-exports every language zod ships (60-odd modules, about 360 KB
// of the bundle) that each job would load before its first progress note.
export { default as en } from 'zod/v4/locales/en.js';
