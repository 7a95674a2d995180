/**
 * The environment phase as the run sees it (`EnvironmentStep`, src/run/ports.ts):
 * detection for pre-planning, then selection and setup for the planner's
 * choice, and the environment section of the execution prompt. A failed
 * setup posts the "environment setup failed" note and hands over with a
 * warning (SPEC E4).
 */
import type { Config } from '../../config/options.ts';
import type { LlmPort } from '../../llm/port.ts';
import type { Logger } from '../../log/logger.ts';
import type { Redactor } from '../../log/redact.ts';
import type { NoteMarker } from '../../report/marker.ts';
import { postNote } from '../../report/note-body.ts';
import type { NoteTarget } from '../../report/note-target.ts';
import type { Clock } from '../../run/clock.ts';
import type { EnvironmentHandoff, EnvironmentStep } from '../../run/ports.ts';
import type { Shell } from '../../shell/port.ts';
import { sandboxEnv } from '../../shell/sandbox-env.ts';
import type { SelectedEnvironment } from '../plan/schema.ts';
import { detectEnvironment } from './detect/detect.ts';
import type { EnvironmentDetection } from './schema.ts';
import { renderEnvironmentSection } from './section.ts';
import { selectEnvironment } from './select.ts';
import { setupEnvironment, setupSettings, type EnvironmentSetupResult } from './setup.ts';

export interface EnvironmentStepDeps {
  config: Config;
  llm: LlmPort;
  shell: Shell;
  clock: Clock;
  logger: Logger;
  redactor: Redactor;
  /** The host environment; setup commands only see `sandboxEnv(hostEnv)`. */
  hostEnv: Readonly<Record<string, string | undefined>>;
  /** Where the failure note goes (the MR/issue, or local files). */
  notes?: NoteTarget;
  marker?: Omit<NoteMarker, 'kind'>;
  /** Sees every setup result (the demo prints the commands and checks). */
  onSetup?: (result: EnvironmentSetupResult) => void;
}

/** An `EnvironmentStep` over detection, selection and setup. */
export function createEnvironmentStep(deps: EnvironmentStepDeps): EnvironmentStep {
  let detection: EnvironmentDetection | undefined;
  let repoDir = '.';
  const sections = new Map<EnvironmentHandoff, string>();
  const settings = setupSettings(deps.config);
  return {
    async detect(dir) {
      repoDir = dir;
      detection = await detectEnvironment(dir);
      return {
        detected_files: detection.detected_files,
        environment_type: detection.environment_type,
        dependencies: detection.dependencies,
        setup_commands: detection.setup_commands,
      };
    },

    async setup(selected: SelectedEnvironment, signal) {
      detection ??= await detectEnvironment(repoDir);
      const selection = selectEnvironment({
        planned: selected,
        detection,
        configured: deps.config.environment.name,
      });
      for (const warning of selection.warnings)
        deps.logger.warn('environment selection adjusted', { warning });
      const result = await setupEnvironment(selection, {
        ...settings,
        llm: deps.llm,
        shell: deps.shell,
        clock: deps.clock,
        logger: deps.logger,
        redactor: deps.redactor,
        cwd: repoDir,
        env: sandboxEnv(deps.hostEnv),
        ...(deps.marker ? { marker: deps.marker } : {}),
        ...(signal ? { signal } : {}),
      });
      deps.onSetup?.(result);
      if (result.note && deps.notes)
        await postNote(deps.notes, result.note, { redactor: deps.redactor });
      sections.set(
        result.handoff,
        await renderEnvironmentSection(result.handoff, {
          redactor: deps.redactor,
          ...(settings.promptsDir ? { promptsDir: settings.promptsDir } : {}),
        }),
      );
      return result.handoff;
    },

    executionSection(handoff) {
      return sections.get(handoff) ?? '';
    },
  };
}
