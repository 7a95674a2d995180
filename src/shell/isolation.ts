/**
 * Commands run as another user than the agent (docs/security.md). The agent
 * holds the GitLab token and the LLM key in its environment, and every
 * process of the same user can read `/proc/<pid>/environ`; a process of
 * another, unprivileged user cannot. So when the agent runs as root (the
 * Docker images), the commands taken from the model or the repository run as
 * `security.command_user`, with a private home, in a checkout handed over
 * to that user. Without root there is no other user to switch to: the
 * commands are refused, or run as the agent's own user when
 * `security.isolation: accept-risk`.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { chmod, chown, lstat, mkdir, mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CommandIsolation, CommandUser } from '../core/isolation.ts';
import { removeCheckoutCredentials } from './checkout-credentials.ts';
import { chooseCommandUser } from './command-user.ts';
import { closeTopFolder, commandsRunIn, handOverCheckout, openPathTo } from './hand-over.ts';

export interface IsolationSettings {
  isolation: 'auto' | 'required' | 'accept-risk';
  command_user: string;
}

export interface IsolationInput {
  security: IsolationSettings;
  /** The checkout the commands work in. */
  checkout: string;
  /** The state folder (relative to the checkout): it stays the agent's. */
  stateDir: string;
  /** A local run (`mr-agent run`): `auto` accepts the risk there; a CI job (the default) refuses. */
  local?: boolean;
  /** Default: this process's uid. */
  uid?: number;
  /** Default: `/etc/passwd`. */
  passwd?: string;
  /**
   * The job's secret values: cut out of the checkout's git directory, with
   * any credentials in its URLs, before the first command (never for a local
   * run: that is the user's own repository).
   */
  secrets?: readonly string[];
}

/** Which user commands would run as, without touching anything (pure). */
export function planIsolation(
  input: IsolationInput,
): { user: { name: string; uid: number; gid: number } } | { sameUser: string } {
  if (input.uid !== 0)
    return { sameUser: `mr-agent is not running as root (uid ${input.uid ?? 'unknown'})` };
  const chosen = chooseCommandUser(input.security.command_user, input.passwd ?? '');
  return 'error' in chosen ? { sameUser: chosen.error } : chosen;
}

/**
 * When a process started, in clock ticks since boot: field 22 of
 * `/proc/<pid>/stat` (counted after the command name, which may hold spaces
 * and parentheses). Undefined when it cannot be read (it ended meanwhile).
 */
export function processStartTicks(pid: number | 'self', proc = '/proc'): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`${proc}/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (the state): field 22 is fields[19]
  const ticks = Number(fields[19]);
  return Number.isInteger(ticks) ? ticks : undefined;
}

/**
 * Clock ticks per second of `/proc/<pid>/stat` (USER_HZ): 100 on every
 * architecture Linux runs on, whatever the kernel's own tick rate.
 */
const USER_HZ = 100;

/**
 * Now, in the clock of `processStartTicks`: the uptime, in ticks, rounded
 * down (a process started from now on has a start time at or after it).
 * Falls back to this process's own start, which is earlier.
 */
export function nowInStartTicks(proc = '/proc'): number {
  try {
    const uptime = Number(readFileSync(`${proc}/uptime`, 'utf8').split(' ')[0]);
    if (Number.isFinite(uptime)) return Math.floor(uptime * USER_HZ);
  } catch {
    // no /proc/uptime: this process's start
  }
  return processStartTicks('self', proc) ?? 0;
}

interface ProcessStatus {
  /** The real uid. */
  uid: number;
  /** The parent's pid; 0 when the parent is outside this PID namespace. */
  ppid: number;
  /** One letter: R, S, Z (zombie), X (dead), … */
  state: string;
}

/** A process's real uid, parent and state from `/proc/<pid>/status`; undefined once it ended. */
function processStatus(pid: number, proc: string): ProcessStatus | undefined {
  let status: string;
  try {
    status = readFileSync(`${proc}/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  return {
    uid: Number(/^Uid:\s+(\d+)/m.exec(status)?.[1] ?? -1),
    ppid: Number(/^PPid:\s+(\d+)/m.exec(status)?.[1] ?? 0),
    state: /^State:\s+(\S)/m.exec(status)?.[1] ?? '',
  };
}

/**
 * Live processes (not zombies) whose real uid is `uid`, read from /proc;
 * with `since`, only those started at or after it (clock ticks since boot).
 * What /proc shows is this process's PID namespace: a process of another
 * namespace is never among them.
 */
export function processesOfUser(uid: number, proc = '/proc', since?: number): number[] {
  const found: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync(proc);
  } catch {
    return found;
  }
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    const status = processStatus(Number(name), proc);
    if (status?.uid !== uid || status.state === 'Z' || status.state === 'X') continue;
    if (since !== undefined) {
      const started = processStartTicks(Number(name), proc);
      if (started === undefined || started < since) continue;
    }
    found.push(Number(name));
  }
  return found;
}

/** The pids above `pid` up to init, nearest first. */
function ancestorsOf(pid: number, proc: string): number[] {
  const found: number[] = [];
  let current = processStatus(pid, proc)?.ppid ?? 0;
  while (current > 0 && found.length < 256 && !found.includes(current)) {
    found.push(current);
    current = processStatus(current, proc)?.ppid ?? 0;
  }
  return found;
}

/**
 * Whether a process of the command user is this job's, by its line of
 * parents: through processes of the same user, it reaches this process
 * (`self`), or an adopter — init, a parent outside the PID namespace, or an
 * ancestor of this process adopting orphans (a child subreaper such as
 * `tini -s`): a process that left its command's tree (`setsid`, a double
 * fork) ends up there, and cannot be told apart from the job's. A line that
 * reaches a live process of another user is another's: another job's agent
 * on the same host running its commands as the same user, a daemon's
 * supervisor.
 */
function startedByThisJob(
  pid: number,
  uid: number,
  family: { self: number; adopters: ReadonlySet<number> },
  proc: string,
): boolean {
  let current = pid;
  for (let depth = 0; depth < 256; depth++) {
    const parent = processStatus(current, proc)?.ppid ?? 0;
    if (parent === family.self || family.adopters.has(parent)) return true;
    const above = processStatus(parent, proc);
    // a parent that just ended leaves an orphan being adopted
    if (above === undefined) return true;
    if (above.uid !== uid) return false;
    current = parent;
  }
  return true;
}

const ROUND_PAUSE = new Int32Array(new SharedArrayBuffer(4));

/**
 * Kills the processes of the command user that the job may have started,
 * however they left their command's process group (`setsid`, a double fork,
 * a SIGHUP they ignore): every process of its uid started at or after
 * `since` (the start of isolation, in clock ticks since boot). A process of
 * the same uid that was running before — `nobody` may run a host's
 * daemons — is left alone, and so is one started by another process than
 * this one (`startedByThisJob`): another job on the same host runs its
 * commands as the same user meanwhile. A process may fork while its
 * siblings are killed, so the scan repeats until none is left (a bounded
 * number of rounds). Synchronous, so it also runs when the agent's process
 * exits. Returns how many processes were killed.
 */
export function killProcessesOfUser(
  uid: number,
  since: number,
  proc = '/proc',
  self = process.pid,
): number {
  if (uid === 0) return 0;
  const adopters = new Set([0, 1, ...ancestorsOf(self, proc)]);
  let killed = 0;
  for (let round = 0; round < 50; round++) {
    const pids = processesOfUser(uid, proc, since).filter((pid) =>
      startedByThisJob(pid, uid, { self, adopters }, proc),
    );
    if (pids.length === 0) return killed;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
        killed++;
      } catch {
        // it ended meanwhile
      }
    }
    Atomics.wait(ROUND_PAUSE, 0, 0, 10); // let the kernel deliver the signals
  }
  return killed;
}

const homes = new Set<string>();
/** Each command user's uid, with when its isolation started (clock ticks since boot). */
const commandUids = new Map<number, number>();
let exitHookInstalled = false;

/**
 * When the agent's process ends, no process a command user started during
 * the job is left (killed first, so none writes into a home being removed),
 * and their homes go.
 */
function cleanUpAtExit(user: { uid: number; home: string }, since: number): void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const [uid, start] of commandUids) killProcessesOfUser(uid, start);
      for (const dir of homes) rmSync(dir, { recursive: true, force: true });
    });
  }
  commandUids.set(user.uid, Math.min(since, commandUids.get(user.uid) ?? since));
  homes.add(user.home);
}

/** A private home for the command user: its own, mode 0700, git trusting any checkout. */
async function privateHome(user: { uid: number; gid: number }): Promise<string> {
  const home = await mkdtemp(path.join(tmpdir(), 'mr-agent-command-home-'));
  // the checkout's `.git` stays the agent's: the user's git reads it as a safe directory
  await writeFile(path.join(home, '.gitconfig'), '[safe]\n\tdirectory = *\n', { mode: 0o600 });
  await chown(path.join(home, '.gitconfig'), user.uid, user.gid);
  await chown(home, user.uid, user.gid);
  await chmod(home, 0o700);
  return home;
}

/**
 * GitLab Runner writes file-type CI/CD variables next to the checkout
 * (`<project dir>.tmp/`): that folder is closed to others.
 */
async function closeRunnerFiles(checkout: string): Promise<void> {
  const folder = `${checkout.replace(/\/+$/, '')}.tmp`;
  const info = await stat(folder).catch(() => undefined);
  if (info?.isDirectory()) await chmod(folder, 0o700);
}

/** The checkout's git directory (`.git`, or where a `.git` file points), if any. */
async function gitDirectory(checkout: string): Promise<string | undefined> {
  const dotGit = path.join(checkout, '.git');
  const info = await lstat(dotGit).catch(() => undefined);
  if (info?.isDirectory()) return dotGit;
  if (!info?.isFile()) return undefined;
  const pointer = /^gitdir:\s*(.+)$/m.exec(await readFile(dotGit, 'utf8'));
  return pointer ? path.resolve(checkout, pointer[1]!.trim()) : undefined;
}

async function removeCredentialsOf(checkout: string, secrets: readonly string[]): Promise<void> {
  const gitDir = await gitDirectory(checkout);
  if (gitDir) await removeCheckoutCredentials(gitDir, secrets);
}

/**
 * Sets up isolation at the start of a run: credentials out of the
 * checkout's git directory (CI only), the command user, its home, the path
 * to the checkout and the checkout itself (its `.git` and the state folder
 * apart). Never throws for a missing user: isolation is then
 * unavailable, and the run says so.
 */
export async function startIsolation(input: IsolationInput): Promise<CommandIsolation> {
  if (input.local !== true) await removeCredentialsOf(input.checkout, input.secrets ?? []);
  const uid = input.uid ?? process.getuid?.();
  const passwd = input.passwd ?? (await readFile('/etc/passwd', 'utf8').catch(() => ''));
  const plan = planIsolation({ ...input, uid, passwd });
  if ('sameUser' in plan)
    return {
      kind: 'same-user',
      reason: plan.sameUser,
      accepted:
        input.security.isolation === 'accept-risk' ||
        (input.security.isolation === 'auto' && input.local === true),
    };
  // no process of the user started before this moment is the job's
  const since = nowInStartTicks();
  const checkout = path.resolve(input.checkout);
  await mkdir(path.join(checkout, input.stateDir), { recursive: true });
  const user: CommandUser = {
    ...plan.user,
    home: await privateHome(plan.user),
    checkout,
    // the state folder's first part: a folder the user owns above it could be swapped for a link
    keep: ['.git', path.normalize(input.stateDir).split('/')[0]!],
  };
  await openPathTo(checkout);
  await closeTopFolder(user);
  await closeRunnerFiles(checkout);
  cleanUpAtExit(user, since);
  return { kind: 'separate-user', user, enter: () => enterAs(user) };
}

/** Before a command as `user`: the checkout is theirs, and the agent reads it as them from now on. */
async function enterAs(user: CommandUser): Promise<void> {
  await handOverCheckout(user);
  await commandsRunIn(user);
}

/**
 * Starts handing the whole checkout over in the background, while the job
 * detects and plans: the first command awaits it (`isolatedRequest`). Called
 * once the first progress note is posted, which needs none of it.
 */
export function beginHandOver(isolation: CommandIsolation): void {
  if (isolation.kind === 'separate-user') handOverCheckout(isolation.user).catch(() => undefined);
}
