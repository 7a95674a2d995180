// What the bundle gives for `rate-limiter-flexible`: the two classes
// gitbeaker's requester-utils imports from it (its per-endpoint limits), from
// their own files. The package's index loads every store it supports (Redis,
// Mongo, MySQL, Postgres, DynamoDB, SQLite, Etcd, …) and Node's `cluster`
// module, which the job would compile and run before its first GitLab request.
export { default as RateLimiterMemory } from 'rate-limiter-flexible/lib/RateLimiterMemory.js';
export { default as RateLimiterQueue } from 'rate-limiter-flexible/lib/RateLimiterQueue.js';
