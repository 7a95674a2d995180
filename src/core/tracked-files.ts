/**
 * The files git tracks in a folder, as one NUL-separated text, or undefined
 * when the folder is not the top of a git work tree (or git cannot say).
 * Environment detection reads a checkout's files through it; the adapter is
 * src/shell/git-tracked.ts.
 */
export type TrackedFiles = (root: string) => Promise<string | undefined>;
