/**
 * Who may command the agent, answered from one members listing per project
 * instead of one look-up per comment author. A flood of comments by distinct
 * people (a thousand non-members typing `/agent`) then costs one
 * `GET /projects/:id/members/all` (paginated) rather than a thousand
 * look-ups queued in front of a Developer's command.
 *
 * A listing answers for its project for `ttlMs`. It is a snapshot, though: an
 * author it does not name, or names below `minAccessLevel`, may have been
 * added or promoted since. Such an author is refused from the listing only
 * while it is younger than `refreshAfterMs`; after that the author waits for
 * one fresh listing. At most one listing per project is in flight and at most
 * one starts per `refreshAfterMs`, so a flood of strangers costs one listing
 * per `refreshAfterMs` at most and never a look-up each.
 *
 * A listing cut short (a project with more members than `maxPages` pages) or
 * a listing that failed leaves the authors it does not name to single
 * look-ups, at most `lookupConcurrency` at once, whose answers are kept for
 * `ttlMs`.
 */
export interface MembershipSource {
  /** The user's effective role on the project (0 when none). */
  accessLevel(projectId: number, userId: number): Promise<number>;
  /** Every member with their role, at most `maxPages` pages; undefined when the port has no listing. */
  listMembers?(
    projectId: number,
    maxPages: number,
  ): Promise<{ members: Map<number, number>; complete: boolean }>;
}

export interface MembershipOptions {
  ttlMs: number;
  /** A listing younger than this is not read again for an author it leaves out. */
  refreshAfterMs: number;
  /** The role that lets an author command; a listing naming someone below it may be stale. */
  minAccessLevel: number;
  maxPages: number;
  lookupConcurrency: number;
  now?: () => number;
  onListingError?(projectId: number, error: unknown): void;
}

interface Listing {
  at: number;
  members: Map<number, number>;
  complete: boolean;
}

/** A counting semaphore: at most `limit` holders at once, the others wait in order. */
class Limiter {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly limit: number) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((go) => this.waiting.push(go));
    else this.active++;
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}

export class MembershipCache {
  private readonly listings = new Map<number, Listing>();
  private readonly listing = new Map<number, Promise<Listing | undefined>>();
  /** When the last listing of each project started, answered or not. */
  private readonly listedAt = new Map<number, number>();
  private readonly single = new Map<string, { at: number; level: Promise<number> }>();
  private readonly limiter: Limiter;
  private readonly now: () => number;

  constructor(
    private readonly source: MembershipSource,
    private readonly options: MembershipOptions,
  ) {
    this.limiter = new Limiter(options.lookupConcurrency);
    this.now = options.now ?? Date.now;
  }

  /**
   * The role the cache already knows for the author, without asking GitLab;
   * undefined when unknown, or when a fresh listing could tell otherwise (the
   * author is not named with the role and a refresh is due or under way).
   */
  known(projectId: number, userId: number): number | undefined {
    const listing = this.fresh(projectId);
    if (!listing) return undefined;
    const level = listing.members.get(userId);
    if (level !== undefined && level >= this.options.minAccessLevel) return level;
    if (this.mayRefresh(projectId)) return undefined;
    if (level !== undefined || listing.complete) return level ?? 0;
    return undefined;
  }

  async accessLevel(projectId: number, userId: number): Promise<number> {
    let listing = this.fresh(projectId);
    const named = listing?.members.get(userId);
    if (!listing || named === undefined || named < this.options.minAccessLevel) {
      if (this.mayRefresh(projectId)) listing = (await this.list(projectId)) ?? listing;
    }
    if (listing) {
      const level = listing.members.get(userId);
      if (level !== undefined) return level;
      if (listing.complete) return 0;
    }
    return this.lookUp(projectId, userId);
  }

  private fresh(projectId: number): Listing | undefined {
    const listing = this.listings.get(projectId);
    return listing && this.now() - listing.at < this.options.ttlMs ? listing : undefined;
  }

  /** A listing is under way, or the last one started at least `refreshAfterMs` ago. */
  private mayRefresh(projectId: number): boolean {
    if (this.listing.has(projectId)) return true;
    const at = this.listedAt.get(projectId);
    return at === undefined || this.now() - at >= this.options.refreshAfterMs;
  }

  /** One listing per project at a time; callers meanwhile share it. */
  private list(projectId: number): Promise<Listing | undefined> {
    const listMembers = this.source.listMembers?.bind(this.source);
    if (!listMembers) return Promise.resolve(undefined);
    let pending = this.listing.get(projectId);
    if (!pending) {
      const at = this.now();
      this.listedAt.set(projectId, at);
      pending = listMembers(projectId, this.options.maxPages)
        .then(
          ({ members, complete }) => {
            const listing = { at, members, complete };
            this.listings.set(projectId, listing);
            return listing;
          },
          (error: unknown) => {
            this.options.onListingError?.(projectId, error);
            return undefined;
          },
        )
        .finally(() => this.listing.delete(projectId));
      this.listing.set(projectId, pending);
    }
    return pending;
  }

  private lookUp(projectId: number, userId: number): Promise<number> {
    const key = `${projectId}:${userId}`;
    const cached = this.single.get(key);
    if (cached && this.now() - cached.at < this.options.ttlMs) return cached.level;
    if (this.single.size > 10_000) this.single.clear(); // bounded memory under a flood
    const level = this.limiter.run(() => this.source.accessLevel(projectId, userId));
    this.single.set(key, { at: this.now(), level });
    level.catch(() => this.single.delete(key));
    return level;
  }
}
