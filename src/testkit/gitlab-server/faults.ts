/** Injectable faults and the request log of the stand-in. */

export interface Fault {
  /** HTTP method to match (any when absent). */
  method?: string;
  /** API path below `/api/v4` (exact string) or a pattern tested against it; any when absent. */
  path?: string | RegExp;
  /** Answer status (429, 500, 403…). Ignored for `hang`. */
  status?: number;
  /** `Retry-After` header value (seconds) for 429 answers. */
  retryAfter?: number | string;
  /** The answer's body: JSON, or a string sent as an HTML page (a proxy's error page). */
  body?: unknown;
  /** Hold the request this long before carrying it out (a slow GitLab); alone, nothing else fails. */
  delayMs?: number;
  /** Never answer (until the server closes). */
  hang?: boolean;
  /**
   * Carry the request out, then lose the answer: hang (`hang`) or answer
   * with `status` — a write that landed although the client saw it fail.
   */
  afterHandling?: boolean;
  /**
   * Answer `302 Found` with `Location` on this origin (e.g. `http://127.0.0.1:4000`),
   * same path and query: GitLab moved, or a download sent on to object storage.
   */
  redirectTo?: string;
  /**
   * Carry the request out, then break the answer off halfway through its
   * body (a proxy or load balancer dropping the connection).
   */
  cutOff?: boolean;
  /** How many matching requests it hits (default 1; Infinity for all). */
  times?: number;
  /**
   * Hits git smart-HTTP requests instead of the API: `path` is then tested
   * against the URL path, e.g. `/acme/app.git/git-receive-pack` (a push).
   */
  git?: boolean;
}

export class Faults {
  private readonly active: (Fault & { left: number })[] = [];

  add(fault: Fault): void {
    this.active.push({ ...fault, left: fault.times ?? 1 });
  }

  clear(): void {
    this.active.length = 0;
  }

  /** The fault for this request, used up by one. */
  take(method: string, path: string, git = false): Fault | undefined {
    const index = this.active.findIndex(
      (f) =>
        f.left > 0 &&
        (f.git === true) === git &&
        (!f.method || f.method.toUpperCase() === method) &&
        (!f.path || (typeof f.path === 'string' ? f.path === path : f.path.test(path))),
    );
    if (index === -1) return undefined;
    const fault = this.active[index]!;
    fault.left--;
    if (fault.left <= 0) this.active.splice(index, 1);
    return fault;
  }
}

export interface LoggedRequest {
  method: string;
  /** Request path without query string (never logs the trigger token). */
  path: string;
  /** Route pattern that served it, e.g. `/projects/:id/merge_requests/:iid/notes`; '' if none. */
  route: string;
  status: number;
  /** The query string (with its `?`), '' when none: tokens must never travel there. */
  query?: string;
  /** When the stand-in carried the request out (ms since the epoch, wall clock). */
  at?: number;
  /**
   * The request's parameters as JSON (query and body merged), for scans of
   * what the agent sent; the trigger API's own `token` field is left out.
   */
  input?: string;
}

/** Every request the stand-in answered, for call-count benchmarks and golden tests. */
export class RequestLog {
  readonly entries: LoggedRequest[] = [];

  record(entry: LoggedRequest): void {
    this.entries.push(entry);
  }

  clear(): void {
    this.entries.length = 0;
  }

  /** Requests matching the filter (method and/or route pattern). */
  count(filter: { method?: string; route?: string } = {}): number {
    return this.entries.filter(
      (e) =>
        (!filter.method || e.method === filter.method) &&
        (!filter.route || e.route === filter.route),
    ).length;
  }

  /** `{ "PUT /projects/:id/merge_requests/:iid/notes/:note_id": 3, … }`, sorted by key. */
  byRoute(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const e of this.entries) {
      const key = `${e.method} ${e.route || e.path}`;
      counts[key] = (counts[key] ?? 0) + 1;
    }
    return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)));
  }
}
