/**
 * Where mr-agent keeps its state (`config.state.directory`, default
 * `.mr-agent`, relative to the repository). The whole folder is the job
 * artifact that carries history from one pipeline to the next (SPEC I2).
 *
 *   .mr-agent/
 *     planning_history/<task>.jsonl   plan, revision, reflection, replan_decision, execution entries
 *     metadata.json                   per-phase status of the current task (seed 004 FR-3)
 *     runs.json                       run records: started, finished, state
 *     result.json                     machine-readable result of the last run (L3)
 *     task-<id>.md                    Task Note (H4)
 *     notes/<kind>-<n>.md             notes of local runs (A5)
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
