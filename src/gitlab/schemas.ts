/**
 * What mr-agent reads from GitLab's REST answers: lenient zod schemas (only
 * the fields we use, unknown fields ignored, absent optional ones defaulted).
 * The adapter parses every answer through one of these.
 */
import * as z from 'zod';

const nullableString = z
  .string()
  .nullish()
  .transform((v) => v ?? '');

export const GitLabUserSchema = z.object({
  id: z.number(),
  username: z.string(),
  name: z.string().nullish(),
  bot: z.boolean().nullish(),
  state: z.string().nullish(),
});
export type GitLabUserSchema = z.infer<typeof GitLabUserSchema>;

export const ProjectSchema = z.object({
  id: z.number(),
  path_with_namespace: z.string(),
  default_branch: z.string().nullish(),
  visibility: z.string().nullish(),
  http_url_to_repo: z.string().nullish(),
  web_url: z.string().nullish(),
});

const Labels = z
  .array(z.union([z.string(), z.object({ name: z.string() })]))
  .nullish()
  .transform((labels) => (labels ?? []).map((l) => (typeof l === 'string' ? l : l.name)));

/** What merge requests and issues share. */
export const WorkItemSchema = z.object({
  id: z.number(),
  iid: z.number(),
  project_id: z.number(),
  title: z.string(),
  description: nullableString,
  state: z.string(),
  labels: Labels,
  author: GitLabUserSchema,
  web_url: z.string().nullish(),
});

export const MergeRequestSchema = WorkItemSchema.extend({
  source_branch: z.string(),
  target_branch: z.string(),
  source_project_id: z.number(),
  target_project_id: z.number(),
  draft: z.boolean().nullish(),
  sha: z.string().nullish(),
  allow_collaboration: z.boolean().nullish(),
});

export const MergeRequestDiffSchema = z.object({
  old_path: z.string(),
  new_path: z.string(),
  new_file: z.boolean().nullish(),
  renamed_file: z.boolean().nullish(),
  deleted_file: z.boolean().nullish(),
  diff: nullableString,
});

export const IssueSchema = WorkItemSchema.extend({
  confidential: z.boolean().nullish(),
});

const LineRefSchema = z.object({
  line_code: z.string().nullish(),
  type: z.string().nullish(),
  old_line: z.coerce.number().nullish(),
  new_line: z.coerce.number().nullish(),
});

/** A diff note's position (`note.position.to_h`; doc/api/discussions.md). */
export const PositionSchema = z.object({
  base_sha: z.string().nullish(),
  start_sha: z.string().nullish(),
  head_sha: z.string().nullish(),
  old_path: z.string().nullish(),
  new_path: z.string().nullish(),
  position_type: z.string().nullish(),
  old_line: z.number().nullish(),
  new_line: z.number().nullish(),
  line_range: z.object({ start: LineRefSchema, end: LineRefSchema }).nullish(),
});

/** A merge request diff version (`GET …/versions`). */
export const DiffVersionSchema = z.object({
  id: z.number(),
  head_commit_sha: z.string(),
  base_commit_sha: z.string(),
  start_commit_sha: z.string(),
  created_at: z.string(),
});

export const NoteSchema = z.object({
  id: z.number(),
  body: nullableString,
  author: GitLabUserSchema,
  system: z.boolean().nullish(),
  /** An internal note (GitLab before 15.0: `confidential`). */
  internal: z.boolean().nullish(),
  confidential: z.boolean().nullish(),
  created_at: z.string(),
  updated_at: z.string().nullish(),
  noteable_type: z.string().nullish(),
  type: z.string().nullish(),
  position: PositionSchema.nullish(),
  resolved: z.boolean().nullish(),
});

export const DiscussionSchema = z.object({
  id: z.string(),
  individual_note: z.boolean().nullish(),
  notes: z.array(NoteSchema).nullish(),
});

export const MemberSchema = z.object({
  id: z.number(),
  username: z.string().nullish(),
  access_level: z.number(),
  state: z.string().nullish(),
});

export const AwardEmojiSchema = z.object({
  id: z.number(),
  name: z.string(),
  user: GitLabUserSchema,
  created_at: z.string().nullish(),
});

export const PipelineSchema = z.object({
  id: z.number(),
  iid: z.number().nullish(),
  project_id: z.number().nullish(),
  ref: z.string(),
  sha: z.string().nullish(),
  status: z.string(),
  source: z.string().nullish(),
  /** `workflow: name` (GitLab 15.5+); null for an unnamed pipeline. */
  name: z.string().nullish(),
  web_url: z.string().nullish(),
  created_at: z.string().nullish(),
});

export const PipelineVariableSchema = z.object({ key: z.string(), value: nullableString });

export const JobSchema = z.object({
  id: z.number(),
  name: z.string(),
  status: z.string(),
  ref: z.string().nullish(),
  web_url: z.string().nullish(),
  pipeline: z.object({ id: z.number() }).nullish(),
  artifacts_expire_at: z.string().nullish(),
});

export const ProtectedBranchSchema = z.object({
  name: z.string(),
  push_access_levels: z.array(z.object({ access_level: z.number().nullish() })).nullish(),
});

/** `GET /version` (doc/api/version.md): `{"version": "8.13.0-pre", "revision": "4e963fe"}`. */
export const GitLabVersionSchema = z.object({
  version: z.string(),
  revision: z.string().nullish(),
});

export const TokenInfoSchema = z.object({
  id: z.number(),
  name: z.string().nullish(),
  scopes: z
    .array(z.string())
    .nullish()
    .transform((s) => s ?? []),
  user_id: z.number().nullish(),
  active: z.boolean().nullish(),
  revoked: z.boolean().nullish(),
  expires_at: z.string().nullish(),
});
