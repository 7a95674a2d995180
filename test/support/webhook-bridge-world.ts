import type { GitLabPort, Noteable } from '../../src/core/gitlab-port.ts';
import { FakeClock } from '../../src/core/clock.ts';
import { createGitLabClient } from '../../src/gitlab/gitbeaker-adapter.ts';
import { startBridgeWorld, type BridgeWorld } from '../trigger/bridge-world.ts';
import { SECRET } from '../trigger/http-client.ts';

/**
 * The webhook bridge as in production: the bridge world, the stand-in's own
 * project webhook (with the bridge's secret) pointing at the first bridge,
 * the developer's GitLab client to comment with, and the merge request as a
 * noteable.
 */
export interface WebhookBridgeWorld {
  w: BridgeWorld;
  developer: GitLabPort;
  mr: Noteable;
  /** Waits until deliveries and the replies they cause (which cause deliveries) go quiet. */
  settle(): Promise<void>;
}

export async function startWebhookBridgeWorld(): Promise<WebhookBridgeWorld> {
  const w = await startBridgeWorld();
  w.standIn.hooks.add(w.s.project, `${w.bridges[0]!.url}/webhook`, SECRET);
  const developer = createGitLabClient({
    url: w.standIn.url,
    token: w.s.developerToken.value,
    clock: new FakeClock(),
  });
  const mr: Noteable = { type: 'merge_request', iid: w.s.mergeRequest.iid };
  return {
    w,
    developer,
    mr,
    async settle() {
      for (let i = 0; i < 5; i++) {
        await w.standIn.hooks.idle();
        await w.idle();
      }
    },
  };
}
