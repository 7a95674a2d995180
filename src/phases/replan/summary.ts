/** The replan history shown to the model : counts, limits, recent decisions. */
import type { Config } from '../../config/options.ts';
import type { ReplanCounters } from './control.ts';
import { BUCKET_OPTION, BUCKETS, bucketLimit } from './levels.ts';

export function historyText(
  config: Config,
  counters: ReplanCounters,
  recent: readonly string[],
): string {
  const total = config.planning.replanning.global.max_total_replans;
  const lines = [`- Replans carried out: ${counters.total} of at most ${total}`];
  for (const bucket of BUCKETS) {
    const used =
      bucket === 'action_retries'
        ? Math.max(0, ...Object.values(counters.retries))
        : (counters.buckets[bucket] ?? 0);
    if (used > 0)
      lines.push(
        `- ${BUCKET_OPTION[bucket]}: ${used} of ${bucketLimit(config, bucket)}${bucket === 'action_retries' ? ' (most for one action)' : ''}`,
      );
  }
  if (recent.length > 0) lines.push('', 'Recent decisions:', ...recent.map((r) => `- ${r}`));
  return lines.join('\n');
}
