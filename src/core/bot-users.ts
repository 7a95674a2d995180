/**
 * Usernames GitLab gives to machine users: project/group access-token bots
 * (`project_42_bot_3f…`, older `project_42_bot1`), service accounts, and the
 * `*-bot`/`*_bot` internal users (support-bot, alert-bot, …) and `ghost`.
 */
const BOT_USERNAMES = [
  /^(project|group)_\d+_bot/i,
  /^service_account_/i,
  /(^|[-_])bot\d*$/i,
  /\[bot\]$/i,
  /^ghost$/i,
];

export function isBotUser(user: { username: string; bot?: boolean | null | undefined }): boolean {
  return user.bot === true || BOT_USERNAMES.some((pattern) => pattern.test(user.username));
}
