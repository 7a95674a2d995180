/**
 * The Node.js version check that runs before anything else of the command is
 * loaded. It is imported first by bin.ts and bundled into the entry file, so
 * it must parse and run on old Node versions too: plain functions, no
 * optional chaining, no newer built-ins, no imports.
 */

/** The lowest Node.js major version the command runs on (package.json `engines.node`). */
export const REQUIRED_NODE_MAJOR = 22;

/**
 * One line naming the required and the found version when `found` (as in
 * `process.versions.node`, e.g. "20.20.2") is too old or unreadable;
 * undefined when it is new enough. `execPath` names the binary that ran.
 */
export function nodeVersionProblem(found: string, execPath: string): string | undefined {
  const major = Number(String(found).split('.')[0]);
  if (major >= REQUIRED_NODE_MAJOR) return undefined;
  return (
    'mr-agent: needs Node.js ' +
    REQUIRED_NODE_MAJOR +
    ' or newer (package.json engines: >=' +
    REQUIRED_NODE_MAJOR +
    '); this is Node.js v' +
    found +
    ' (' +
    execPath +
    ')'
  );
}
