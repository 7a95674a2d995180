/**
 * The bridge against the real GitLab stand-in over HTTP: the standard
 * scenario (bot, developer, guest, maintainer, project, MR, issue), a pipeline
 * trigger token, and one or more `startBridge` instances using the gitbeaker
 * adapter.
 */
import { loadConfig } from '../../src/config/load.ts';
import { createGitLabClient } from '../../src/gitlab/gitbeaker-adapter.ts';
import { createMemoryLogger } from '../../src/log/logger.ts';
import { Redactor } from '../../src/log/redact.ts';
import { FakeClock } from '../../src/core/clock.ts';
import {
  seedScenario,
  startGitLabStandIn,
  type GitLabStandIn,
  type Scenario,
} from '../../src/testkit/gitlab-server/index.ts';
import type {
  IssueRec,
  MergeRequestRec,
  NoteRec,
  UserRec,
} from '../../src/testkit/gitlab-server/index.ts';
import { startBridge } from '../../src/trigger/bridge.ts';
import { bridgeGitLabFromPort } from '../../src/commands/gitlab-bridge.ts';
import type { RunningBridge } from '../../src/trigger/server.ts';
import { SECRET } from './http-client.ts';
import { commentWithHook } from './note-hook.ts';

export interface BridgeWorld {
  standIn: GitLabStandIn;
  s: Scenario;
  triggerToken: string;
  bridges: RunningBridge[];
  logLines: string[];
  /** Adds a comment to GitLab and returns it with its webhook body. */
  comment(
    on: MergeRequestRec | IssueRec,
    author: UserRec,
    body: string,
  ): { note: NoteRec; hook: Record<string, unknown> };
  /** Waits until every bridge has handled what it accepted. */
  idle(): Promise<void>;
  triggerPipelines(): GitLabStandIn['model']['pipelines'];
  close(): Promise<void>;
}

export async function startBridgeWorld(
  options: {
    instances?: number;
    sets?: string[];
    logLevel?: 'debug' | 'info';
    /** The bridge's clock for how old a members listing is (default: the wall clock). */
    now?: () => number;
  } = {},
): Promise<BridgeWorld> {
  const standIn = await startGitLabStandIn();
  const s = await seedScenario(standIn.model);
  const triggerToken = standIn.model.addTriggerToken(s.project, s.maintainer.id).value;
  const env = {
    MR_AGENT_GITLAB_URL: standIn.url,
    MR_AGENT_GITLAB_TOKEN: s.botToken.value,
    MR_AGENT_WEBHOOK_SECRET: SECRET,
    MR_AGENT_TRIGGER_TOKEN: triggerToken,
  };
  // the scenario's project declares no pipeline inputs: these tests pass the request as
  // variables; test/trigger/pipeline-inputs.test.ts covers inputs and `auto`
  const sets = [
    'serve.port=0',
    'serve.host=127.0.0.1',
    'trigger.pass_as=variables',
    ...(options.sets ?? []),
  ];
  const { config } = await loadConfig({ env, file: null, sets });
  const redactor = new Redactor();
  redactor.addFromEnv(env);
  const { logger, lines } = createMemoryLogger({
    redactor,
    format: 'json',
    level: options.logLevel ?? 'debug',
  });
  const bridges: RunningBridge[] = [];
  for (let i = 0; i < (options.instances ?? 1); i++) {
    const port = createGitLabClient({
      url: standIn.url,
      token: s.botToken.value,
      clock: new FakeClock(),
      retry: { timeoutMs: 5000 },
    });
    bridges.push(
      await startBridge({
        config,
        gitlab: bridgeGitLabFromPort(port),
        logger,
        redactor,
        ...(options.now ? { now: options.now } : {}),
      }),
    );
  }
  const comment: BridgeWorld['comment'] = (on, author, body) =>
    commentWithHook(standIn.model, s, on, author, body);
  return {
    standIn,
    s,
    triggerToken,
    bridges,
    logLines: lines,
    comment,
    idle: async () => {
      await Promise.all(bridges.map((b) => b.idle()));
    },
    triggerPipelines: () => standIn.model.pipelines.filter((p) => p.source === 'trigger'),
    close: async () => {
      await Promise.all(bridges.map((b) => b.close()));
      await standIn.close();
    },
  };
}
