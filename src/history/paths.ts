/**
 * Where mr-agent keeps its state (`config.state.directory`, default
 * `.mr-agent`, relative to the repository). The whole folder is the job
 * artifact that carries history from one pipeline to the next.
 *
 *   .mr-agent/
 *     planning_history/<task>.jsonl   plan, revision, reflection, replan_decision, execution entries
 *     metadata.json                   per-phase status of the current task
 *     runs.json                       run records: started, finished, state
 *     result.json                     machine-readable result of the last run
 *     task-<id>.md                    Task Note
 *     notes/<kind>-<n>.md             notes of local runs
 */
import path from 'node:path';

export interface StatePaths {
  stateDir: string;
  historyDir: string;
  metadata: string;
  runs: string;
  result: string;
  notesDir: string;
}

/** Resolves the state paths; `stateDir` may be relative to `repoDir`. */
export function statePaths(
  repoDir: string,
  stateDir = '.mr-agent',
  historyDir = 'planning_history',
): StatePaths {
  const root = path.resolve(repoDir, stateDir);
  return {
    stateDir: root,
    historyDir: path.resolve(root, historyDir),
    metadata: path.join(root, 'metadata.json'),
    runs: path.join(root, 'runs.json'),
    result: path.join(root, 'result.json'),
    notesDir: path.join(root, 'notes'),
  };
}

export { safeFileName } from '../core/stored-document.ts';
