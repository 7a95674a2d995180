export type LogFormat = 'json' | 'text';

/** `log.format: auto` is JSON lines in CI (`CI=true`) and text elsewhere. */
export function resolveLogFormat(
  format: LogFormat | 'auto',
  env: Readonly<Record<string, string | undefined>>,
): LogFormat {
  return format === 'auto' ? (env['CI'] === 'true' ? 'json' : 'text') : format;
}
