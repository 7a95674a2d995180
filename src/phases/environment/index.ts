/** The environment phase: detection, selection, setup and verification, and the hand-off. */
export { detectEnvironment, type DetectOptions } from './detect-environment.ts';
export { selectEnvironment, type EnvironmentSelection, type SelectionInput } from './select.ts';
export {
  setupEnvironment,
  setupSettings,
  type EnvironmentSetupResult,
  type SetupDeps,
  type SetupPlan,
} from './setup.ts';
export { classifyFailure, RETRY_WAITS_MS, type Classification } from './classify.ts';
export { renderFailureNote } from './failure-note.ts';
export { renderEnvironmentSection } from './section.ts';
export { outputMatches } from './verify.ts';
export {
  EnvironmentName,
  RegenerationReply,
  SelectedEnvironment,
  VerificationCheck,
  type EnvironmentDetection,
  type EnvironmentHandoff,
  type VersionPin,
} from '../../core/environment.ts';
