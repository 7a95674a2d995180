/**
 * The GitLab versions the job's own GitLab calls need, and what the job does
 * on an older instance. `GET /version` is read at job start; a feature the
 * instance lacks is named in the progress note with the version it needs and
 * the fallback the job takes. docs/gitlab.md ("GitLab versions") lists these
 * and the versions the component's configuration needs
 * (test/gitlab/requirements.test.ts keeps the two in step).
 */
import { t } from '../messages/catalog.ts';
import type { Language } from '../messages/language.ts';

export type GitLabVersion = readonly [major: number, minor: number];

export interface JobFeature {
  /** What the job uses, as docs/gitlab.md names it. */
  feature: string;
  minimum: GitLabVersion;
  /** The progress-note line on an older instance. */
  notice: 'notice.gitlabTokenScopes' | 'notice.gitlabTriggerInputs';
}

export const JOB_FEATURES: readonly JobFeature[] = [
  {
    feature: "Reading the token's scopes (`GET /personal_access_tokens/self`)",
    minimum: [15, 5],
    notice: 'notice.gitlabTokenScopes',
  },
  {
    feature: 'Pipeline inputs through the trigger API (the bridge)',
    minimum: [18, 1],
    notice: 'notice.gitlabTriggerInputs',
  },
];

/** `major.minor` of a `GET /version` answer ("17.11.2-ee", "18.4.0-pre"); undefined when unreadable. */
export function parseGitLabVersion(text: string): GitLabVersion | undefined {
  const m = /^(\d+)\.(\d+)(?:\.|$|-)/.exec(text.trim());
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}

export function formatVersion([major, minor]: GitLabVersion): string {
  return `${major}.${minor}`;
}

function below(version: GitLabVersion, minimum: GitLabVersion): boolean {
  return version[0] < minimum[0] || (version[0] === minimum[0] && version[1] < minimum[1]);
}

/** The job's features an instance of `version` lacks, oldest requirement first. */
export function lackingFeatures(version: GitLabVersion): JobFeature[] {
  return JOB_FEATURES.filter((f) => below(version, f.minimum));
}

/** The progress note's lines for what the instance (`found`, as GitLab wrote it) lacks. */
export function versionNotices(found: string, language: Language): string[] {
  const version = parseGitLabVersion(found);
  if (!version) return [];
  return lackingFeatures(version).map((f) =>
    t(language, f.notice, { found, minimum: formatVersion(f.minimum) }),
  );
}
