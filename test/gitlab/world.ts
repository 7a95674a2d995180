/** A stand-in GitLab with the standard scenario and a client for the bot, per test. */
import { createGitLabClient } from '../../src/gitlab/gitbeaker-adapter.ts';
import type { GitLabPort } from '../../src/core/gitlab-port.ts';
import type { RetryPolicy } from '../../src/gitlab/requester.ts';
import { FakeClock } from '../../src/core/clock.ts';
import {
  seedScenario,
  startGitLabStandIn,
  type GitLabStandIn,
  type Scenario,
  type StandInOptions,
} from '../../src/testkit/gitlab-server/index.ts';

export interface World {
  standIn: GitLabStandIn;
  s: Scenario;
  clock: FakeClock;
  gitlab: GitLabPort;
  /** A client for another token (same fake clock). */
  clientFor(token: string, kind?: 'private' | 'oauth' | 'job'): GitLabPort;
  close(): Promise<void>;
}

export async function startWorld(
  retry: Partial<RetryPolicy> = {},
  options: StandInOptions = {},
): Promise<World> {
  const standIn = await startGitLabStandIn(options);
  const s = await seedScenario(standIn.model);
  const clock = new FakeClock();
  const clientFor = (token: string, tokenKind: 'private' | 'oauth' | 'job' = 'private') =>
    createGitLabClient({
      url: standIn.url,
      token,
      tokenKind,
      clock,
      retry: { timeoutMs: 2000, ...retry },
    });
  return {
    standIn,
    s,
    clock,
    gitlab: clientFor(s.botToken.value),
    clientFor,
    close: () => standIn.close(),
  };
}
