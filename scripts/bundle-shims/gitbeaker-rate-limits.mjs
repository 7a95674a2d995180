// What the bundle gives for the two packages behind gitbeaker's per-endpoint
// rate limits (rate-limiter-flexible, and picomatch-browser to match the
// endpoints): nothing that works. gitbeaker builds its limiters only in its own
// requester, and mr-agent plugs in its own (src/gitlab/requester.ts), which
// waits for GitLab's 429 and Retry-After instead; leaving them out spares every
// job ~65 KB of JavaScript before its first GitLab request. Anything that did
// reach them would fail at once, saying why.
function notBundled() {
  throw new Error(
    "gitbeaker's own rate limiting is not in mr-agent's bundle: its requester paces GitLab",
  );
}

export class RateLimiterMemory {
  constructor() {
    notBundled();
  }
}

export class RateLimiterQueue {
  constructor() {
    notBundled();
  }
}

export default { isMatch: notBundled };
