import { ENVIRONMENTS } from '../../config/options.ts';
import { defaultProposal } from './detect/decide.ts';
import { DEFAULT_ENVIRONMENT, ENVIRONMENT_KINDS, kindOf } from './registry.ts';
import {
  SelectedEnvironment,
  type EnvironmentDetection,
  type EnvironmentName,
  type EnvironmentProposal,
  type VerificationCheck,
} from '../../core/environment.ts';

export interface SelectionInput {
  /** The planning reply's `selected_environment`, as received (validated here). */
  planned?: unknown;
  detection: EnvironmentDetection;
  /** Environments this installation offers (default: all five). */
  available?: readonly EnvironmentName[];
  /** `environment.name` from the configuration; anything but `auto` overrides the planner. */
  configured?: 'auto' | EnvironmentName;
}

export type SelectionPart =
  'name' | 'reason' | 'detected_files' | 'setup_commands' | 'verification';

/** The environment to set up, with every part filled. */
export interface EnvironmentSelection {
  name: EnvironmentName;
  reason: string;
  detected_files: string[];
  setup_commands: string[];
  verification: VerificationCheck[];
  /** Parts taken from detection because the planner gave none or an unusable one. */
  defaulted: SelectionPart[];
  /** What was wrong with the planner's choice, for the log and the progress note. */
  warnings: string[];
}

/** Names models use for the environments. */
const ALIASES: ReadonlyMap<string, EnvironmentName> = new Map(
  ENVIRONMENT_KINDS.flatMap((kind) => kind.aliases.map((alias) => [alias, kind.name] as const)),
);

function normalise(name: string): string {
  const lower = name.trim().toLowerCase();
  return ALIASES.get(lower) ?? lower;
}

function issuesOf(error: { issues: { path: PropertyKey[]; message: string }[] }): string {
  return error.issues
    .map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`)
    .join('; ');
}

interface NameChoice {
  name: EnvironmentName;
  fromPlanner: boolean;
  reason: string;
}

function chooseName(
  input: SelectionInput,
  planned: SelectedEnvironment,
  warnings: string[],
): NameChoice {
  const available = input.available ?? ENVIRONMENTS;
  const detected = input.detection.environment_type;
  if (input.configured && input.configured !== 'auto' && available.includes(input.configured)) {
    if (planned.name && normalise(planned.name) !== input.configured)
      warnings.push(
        `the planner chose "${planned.name}", but environment.name is set to ${input.configured}`,
      );
    return {
      name: input.configured,
      fromPlanner: false,
      reason: `environment.name is set to ${input.configured}`,
    };
  }
  if (planned.name) {
    const name = normalise(planned.name);
    if ((available as readonly string[]).includes(name))
      return { name: name as EnvironmentName, fromPlanner: true, reason: '' };
    warnings.push(
      `"${planned.name}" is not an available environment (available: ${available.join(', ')})`,
    );
  }
  if (available.includes(detected)) {
    const chose =
      input.detection.reasons.find((r) => r.startsWith('chose ')) ?? `detected ${detected}`;
    return { name: detected, fromPlanner: false, reason: `detection: ${chose}` };
  }
  const fallback = available.includes(DEFAULT_ENVIRONMENT) ? DEFAULT_ENVIRONMENT : available[0]!;
  return {
    name: fallback,
    fromPlanner: false,
    reason: `${fallback}: the default environment`,
  };
}

/**
 * Validates the planner's `selected_environment` against the available
 * environments and fills what is missing from detection: the name from the
 * detected environment type (python as the last resort), the setup commands
 * and verification from the detected proposal for that environment. An empty
 * list counts as missing. Commands the planner wrote for an environment that
 * was then replaced are not used.
 */
export function selectEnvironment(input: SelectionInput): EnvironmentSelection {
  const warnings: string[] = [];
  const parsed = SelectedEnvironment.safeParse(input.planned ?? {});
  if (!parsed.success)
    warnings.push(
      `selected_environment is not usable (${issuesOf(parsed.error)}); using detection`,
    );
  const planned: SelectedEnvironment = parsed.success ? parsed.data : {};
  const choice = chooseName(input, planned, warnings);
  const proposal: EnvironmentProposal =
    input.detection.proposals[choice.name] ?? defaultProposal(kindOf(choice.name));
  const defaulted: SelectionPart[] = [];
  const pick = <T>(part: SelectionPart, mine: T[] | undefined, fallback: T[]): T[] => {
    if (choice.fromPlanner && mine && mine.length > 0) return mine;
    defaulted.push(part);
    return fallback;
  };
  if (!choice.fromPlanner) defaulted.push('name');
  const detectedFiles = Object.keys(input.detection.detected_files).filter((f) => f !== '…');
  const selection: EnvironmentSelection = {
    name: choice.name,
    reason:
      choice.fromPlanner && planned.reason
        ? planned.reason
        : choice.reason || `the planner chose ${choice.name}`,
    detected_files: pick('detected_files', planned.detected_files, detectedFiles),
    setup_commands: pick('setup_commands', planned.setup_commands, proposal.setup_commands),
    verification: pick('verification', planned.verification, proposal.verification),
    defaulted,
    warnings,
  };
  if (!(choice.fromPlanner && planned.reason)) defaulted.push('reason');
  return selection;
}
