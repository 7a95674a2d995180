/** The one function of `xcase` (gitbeaker's key-case converter) mr-agent calls: camelCase keys to snake_case, deeply. */
declare module 'xcase' {
  export function decamelizeKeys(value: unknown): unknown;
}
