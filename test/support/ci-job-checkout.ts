import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  seedScenario,
  startGitLabStandIn,
  type GitLabStandIn,
  type Scenario,
} from '../../src/testkit/gitlab-server/index.ts';
import type { NoteRec } from '../../src/testkit/gitlab-server/records.ts';
import {
  startScriptedOpenAiServer,
  type ScriptedOpenAiServer,
} from '../../src/testkit/openai-server/server.ts';
import { scriptedRunVariables, standInJobVariables } from '../ci/job-world.ts';
import { commentWithHook } from '../trigger/note-hook.ts';

export interface CiJobCheckoutOptions {
  /** The prefix of the temp folder that holds the job's folder and is its home. */
  tempPrefix: string;
  /** Clone the project's default branch instead of the merge request's source branch. */
  onDefaultBranch?: boolean;
  /** A scripted OpenAI-compatible server with this key and these replies; without it, no model. */
  model?: { key: string; replies: unknown[] };
}

/**
 * The world of one `mr-agent ci` job a test runs itself (`runCli(['ci'])`):
 * the GitLab stand-in seeded with the scenario, a fresh clone of the merge
 * request's source branch (or the default branch) as the job's folder, in a
 * temp root that is also the job's home, and the scripted model when asked.
 */
export interface CiJobCheckout {
  standIn: GitLabStandIn;
  s: Scenario;
  /** The temp root: the job's home, where payload files go. */
  root: string;
  /** The job's folder (CI_PROJECT_DIR), a clone of the stand-in's repository. */
  job: string;
  /** The scripted model, when the options asked for one. */
  llm: ScriptedOpenAiServer | undefined;
  /**
   * The variables of the stand-in's agent job in `job`, the scripted run's
   * when there is a model, then `extra`.
   */
  jobVariables(extra?: Record<string, string>): Record<string, string>;
  /**
   * A comment by `author` (the developer by default) on the merge request
   * and, in a file under `root`, the Comments event GitLab sends for it (a
   * job's TRIGGER_PAYLOAD).
   */
  commentPayload(body: string, author?: Scenario['developer']): { note: NoteRec; file: string };
  /** Stops the stand-in and the model, removes the temp root. */
  close(): Promise<void>;
}

/** Starts the stand-in, seeds it, clones the job's folder and starts the model when asked. */
export async function startCiJobCheckout(options: CiJobCheckoutOptions): Promise<CiJobCheckout> {
  const standIn = await startGitLabStandIn();
  const s = await seedScenario(standIn.model);
  const root = mkdtempSync(path.join(os.tmpdir(), options.tempPrefix));
  const job = path.join(root, 'job');
  const model = options.model;
  let llm: ScriptedOpenAiServer | undefined;
  try {
    const branch = options.onDefaultBranch ? s.project.defaultBranch : s.mergeRequest.sourceBranch;
    execFileSync('git', ['clone', '-q', '-b', branch, s.project.repoDir, job]);
    llm = model
      ? await startScriptedOpenAiServer({
          apiKey: model.key,
          scenario: { replies: model.replies } as Parameters<
            typeof startScriptedOpenAiServer
          >[0]['scenario'],
        })
      : undefined;
  } catch (error) {
    // a test whose set-up failed gets no world to close: leave nothing running
    await standIn.close();
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
  return {
    standIn,
    s,
    root,
    job,
    llm,
    jobVariables: (extra = {}) => ({
      ...standInJobVariables(standIn, s, { dir: job, home: root }),
      ...(llm && model ? scriptedRunVariables(llm, model.key) : {}),
      ...extra,
    }),
    commentPayload(body, author = s.developer) {
      const { note, hook } = commentWithHook(standIn.model, s, s.mergeRequest, author, body);
      const file = path.join(root, `payload-${note.id}.json`);
      writeFileSync(file, JSON.stringify(hook));
      return { note, file };
    },
    async close() {
      await standIn.close();
      await llm?.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Starts `server` on a free port of the loopback; its base URL. */
export async function listenLocally(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Every file below `dir` (a job's `.mr-agent/` artifacts), none when it does not exist. */
export function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    return statSync(file).isDirectory() ? filesUnder(file) : [file];
  });
}
