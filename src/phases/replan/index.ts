/**
 * LLM-decided replanning: `createReplanHook` builds
 * the run's `ReplanHook` — the `ReplanManager` when
 * `planning.replanning.enabled`, else the hook that always continues.
 */
import type { Config } from '../../config/options.ts';
import type { LlmPort } from '../../core/llm-port.ts';
import type { Logger } from '../../log/logger.ts';
import type { Redactor } from '../../log/redact.ts';
import type { NoteTarget } from '../../core/note-target.ts';
import type { NoteContext } from '../../report/notes/context.ts';
import type { Clock } from '../../core/clock.ts';
import { noReplan, type ReplanHook } from '../../core/hooks.ts';
import type { OpenDocument } from '../../core/stored-document.ts';
import type { AnswerSource } from './answers.ts';
import { ReplanManager, type ReplanRecorder } from './manager.ts';
import type { ProgressSink } from './notify.ts';
import type { ReplanPrompts } from './prompts.ts';
import { replanStateFile, replanStateStore } from './state.ts';

export { ReplanManager, type ReplanRecorder } from './manager.ts';
export { gitlabAnswers, type AnswerSource, type ThreadReply } from './answers.ts';
export { replanStateFile } from './state.ts';
export { replanPrompts } from './prompts.ts';

export interface ReplanWiring {
  config: Config;
  clock: Clock;
  logger: Logger;
  redactor: Redactor;
  /** The state directory (`.mr-agent`): the replan state lives in `replan/<key>.json`. */
  stateDir: string;
  /** The MR/issue (`12!42`, `12#7`) when known, else the task id: how a resumed run finds its state. */
  key: string;
  /** Where the replan state is kept (the JSON files of `history/json-file.ts`). */
  documents: OpenDocument;
  /** The replan prompts (`replanPrompts` of the run's prompt library, in the notes' language). */
  prompts: ReplanPrompts;
  /** Used when a checkpoint does not bring the run's LLM port (the run always does). */
  llm?: LlmPort;
  /** The planning history (`PlanningHistoryStore`): one `replan_decision` entry per decision. */
  recorder?: ReplanRecorder;
  /** Where 🔄 and ❓ notes go; absent: no notes, and no questions can be asked. */
  notes?: { target: NoteTarget; context: NoteContext };
  /** Replies to the ❓ note (GitLab: `gitlabAnswers`); absent: no waiting for answers. */
  answers?: AnswerSource;
  /** The progress note's publisher (replan count). */
  progress?: ProgressSink;
}

export async function createReplanHook(w: ReplanWiring): Promise<ReplanHook> {
  if (!w.config.planning.replanning.enabled) return noReplan;
  const file = replanStateFile(w.stateDir, w.key);
  return ReplanManager.open({
    config: w.config,
    clock: w.clock,
    logger: w.logger,
    store: replanStateStore(file, w.documents, () => w.clock.now()),
    prompts: w.prompts,
    ...(w.llm ? { llm: w.llm } : {}),
    ...(w.recorder ? { recorder: w.recorder } : {}),
    ...(w.notes
      ? {
          notes: {
            ...w.notes,
            redactor: w.redactor,
            minAccessLabel: w.config.trigger.min_access_level,
          },
        }
      : {}),
    ...(w.answers ? { answers: w.answers } : {}),
    ...(w.progress ? { progress: w.progress } : {}),
  });
}
