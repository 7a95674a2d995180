/**
 * The worker port (docs/agent-runner.md): a worker carries out one
 * instruction of the meta-agent in the repository and reports what happened.
 * The external kinds run a coding CLI; the builtin tool loop can be adapted to
 * the same interface.
 */
export const EXTERNAL_WORKER_KINDS = ['codex-cli', 'claude-code', 'gemini-cli'] as const;
export type ExternalWorkerKind = (typeof EXTERNAL_WORKER_KINDS)[number];

/**
 * Who sandboxes the CLI: `outer` — the CI job
 * container is the sandbox, so the CLI's own sandbox and approval prompts are
 * off; `cli` — the CLI's own sandbox with workspace writes (a developer host).
 */
export type SandboxMode = 'outer' | 'cli';

export interface WorkerRunRequest {
  /** The natural-language instruction for the worker (the meta's `worker_call.prompt`). */
  prompt: string;
  /** Absolute path of the repository; the worker runs there. */
  repoDir: string;
  /** The complete environment of the worker process (see `workerEnv`). */
  env: Readonly<Record<string, string>>;
  /** Time limit; after it SIGTERM, then SIGKILL after the kill delay. */
  maxRunTimeSec: number;
  /** Model id passed to the CLI; the CLI's default when absent. */
  model?: string;
  signal?: AbortSignal;
}

/** One worker run. Times are ISO 8601. */
export interface WorkerRunRecord {
  id: string;
  kind: string;
  startedAt: string;
  finishedAt: string;
  /** Undefined when the process never exited by itself (killed, not started). */
  exitCode: number | undefined;
  /** Combined stdout and stderr, capped (head and tail kept). */
  rawOutput: string;
  /** What the worker says it did, parsed from the CLI's JSON output. */
  summary: string;
  /** Why the run did not succeed (launch failure, timeout, CLI error, exit code); absent on success. */
  error?: string;
  /** The signal that ended the process, if one did (SIGTERM, SIGKILL). */
  signal?: string;
  timedOut: boolean;
  cancelled: boolean;
  durationMs: number;
}

export interface Worker {
  readonly kind: string;
  runWorker(request: WorkerRunRequest): Promise<WorkerRunRecord>;
}
