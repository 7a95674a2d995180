/** The GitLab stand-in: shipped (the demo runs on it) and used by tests. */
export { startGitLabStandIn, type GitLabStandIn, type StandInOptions } from './server.ts';
export { GitLabModel, type NewPipeline } from './model.ts';
export { Faults, RequestLog, type Fault, type LoggedRequest } from './faults.ts';
export { MAX_NOTE_LENGTH } from './routes-notes.ts';
export type * from './records.ts';
export { seedScenario, SCENARIO_FILES, type Scenario } from './scenario.ts';
export { Hooks, type HookRec, type HookDelivery } from './hooks.ts';
