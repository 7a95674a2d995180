import { hostsOfVariables } from './host-of.ts';
import { ENVIRONMENT_KINDS } from './registry.ts';

/**
 * Where a failed name lookup in a setup command's output counts as the
 * network and where as a dependency host the runner cannot reach. The hosts
 * setup fetches from by configuration — each environment's registries and
 * mirrors (its `registryHosts`) and the proxy — are the network: when one of
 * them does not resolve, a retry may help. Any other host that does not
 * resolve (a tarball or git URL in the project's dependencies, a download of
 * a tool's own) was named by the project, and a retry only waits: the runner
 * has to be let reach it, or the dependency vendored or mirrored.
 */

const PROXY = /^(?:https?_proxy|all_proxy)$/;

/** The hosts setup commands fetch from by configuration, for the commands' `env` run in `dir`. */
export function fetchHosts(
  env: Readonly<Record<string, string | undefined>>,
  dir: string | undefined,
): string[] {
  const proxies = hostsOfVariables(env, PROXY);
  const registries = ENVIRONMENT_KINDS.flatMap((k) => k.registryHosts?.(env, dir) ?? []);
  return [...new Set([...proxies, ...registries])];
}

const HOST = String.raw`([A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)`;

/**
 * A failed lookup as the tools print it: Node's `getaddrinfo ENOTFOUND host`
 * (npm, pnpm, Yarn, corepack; `EAI_AGAIN` when the resolver gave no
 * answer), git's and curl's `Could not resolve host: host`, ssh's `Could not
 * resolve hostname host:`.
 */
const LOOKUP = new RegExp(
  String.raw`getaddrinfo (?:ENOTFOUND|EAI_AGAIN) ${HOST}|Could not resolve host: ${HOST}|Could not resolve hostname ${HOST}:`,
  'g',
);

export interface UnresolvedHost {
  host: string;
  /** Where in the text the lookup failure is printed. */
  index: number;
}

/**
 * The first host in `text` whose name lookup failed, when none of the hosts
 * that failed is one setup fetches from by configuration (then the network
 * itself is down, and that is retried).
 */
export function unresolvedHost(text: string, hosts: readonly string[]): UnresolvedHost | undefined {
  const known = new Set(hosts.map((h) => h.toLowerCase()));
  let first: UnresolvedHost | undefined;
  for (const found of text.matchAll(LOOKUP)) {
    const host = (found[1] ?? found[2] ?? found[3])!.toLowerCase().replace(/\.$/, '');
    if (known.has(host)) return undefined;
    first ??= { host, index: found.index };
  }
  return first;
}
