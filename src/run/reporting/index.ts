import type { Config } from '../../config/options.ts';
import { MetadataStore } from '../../history/metadata.ts';
import { statePaths, type StatePaths } from '../../history/paths.ts';
import { PlanningHistoryStore } from '../../history/planning-history.ts';
import { rotateHistoryAtStart } from '../../history/rotation.ts';
import { interruptedNotice, RunRecords } from '../../history/run-records.ts';
import type { Logger } from '../../log/logger.ts';
import type { Redactor } from '../../log/redact.ts';
import type { NoteTarget } from '../../core/note-target.ts';
import { ProgressPublisher } from '../../report/progress/publisher.ts';
import type { Scheduler } from '../../report/progress/scheduler.ts';
import { linkingRelatedNotes } from '../../report/progress/related.ts';
import { addNotice, initialProgress } from '../../core/progress/updates.ts';
import { resolveLanguage, type Language } from '../../messages/language.ts';
import type { AnswerSource } from '../../phases/replan/index.ts';
import { promptLibrary } from '../../llm/prompt-files.ts';
import { jsonDocuments } from '../../history/json-file.ts';
import type { Clock } from '../../core/clock.ts';
import type { ReplanHook } from '../../core/hooks.ts';
import type { RunHistory, RunReporter } from '../../core/ports.ts';
import { abandonRun, type AbandonedEnd } from './abandon.ts';
import { storeHistory } from './history.ts';
import { ProgressReporter } from './reporter.ts';

export interface ReportingOptions {
  repoDir: string;
  config: Config;
  taskId: string;
  title: string;
  runId: string;
  target: NoteTarget;
  redactor: Redactor;
  logger: Logger;
  clock: Clock;
  scheduler?: Scheduler;
  /** CI facts for the note marker and links (absent locally). */
  ci?: { jobId?: string; pipelineId?: string; jobUrl?: string };
  /** The MR/issue the run belongs to (history continuity, I1). */
  issueId?: string;
  artifactUrl?: (file: string) => string | undefined;
  /** Replies to the ❓ clarification note (GitLab: `gitlabAnswers`); absent: no waiting. */
  answers?: AnswerSource;
  /** The task whose plan the run may reuse (`/agent retry`, resume); default: its own. */
  planSource?: string;
  /** Warning lines shown under the note's header from the start (e.g. commands not isolated). */
  notices?: readonly string[];
  /**
   * The notes' language, decided once for the run (the composition passes
   * it); default: `notes.language`, `auto` following the title.
   */
  language?: Language;
  /** Who asked (a GitLab username), @mentioned in the ❓ and 🙋 notes. */
  requester?: string;
}

/** The notes' language: as given, else `notes.language` (`auto`: the request's). */
export function notesLanguage(
  options: Pick<ReportingOptions, 'config' | 'title'> & { language?: Language | undefined },
): Language {
  return options.language ?? resolveLanguage(options.config.notes.language, options.title);
}

export interface Reporting {
  reporter: RunReporter;
  history: RunHistory;
  publisher: ProgressPublisher;
  paths: StatePaths;
  /** The replan hook (docs/replanning.md): the ReplanManager when `planning.replanning.enabled`. */
  replan: ReplanHook;
  /** Writes the end when the run could not (see `abandonRun`); the note is waited for at most `noteMs`. */
  abandon(end: AbandonedEnd, noteMs: number): Promise<void>;
  /** The notes' language; prompts, the environment failure note and the patch note follow it. */
  language: Language;
}

/**
 * Records the run's start (an earlier unfinished run is shown as
 * interrupted, I3) and creates the progress note.
 */
async function openProgressNote(options: ReportingOptions, paths: StatePaths) {
  const { logger, clock } = options;
  const ci = options.ci ?? {};
  const runRecords = new RunRecords({ file: paths.runs, logger, clock });
  const { interrupted } = await runRecords.begin({
    runId: options.runId,
    taskId: options.taskId,
    ...(options.issueId ? { issueId: options.issueId } : {}),
    ...(ci.jobId ? { jobId: ci.jobId } : {}),
    ...(ci.pipelineId ? { pipelineId: ci.pipelineId } : {}),
  });
  let initial = initialProgress({
    taskId: options.taskId,
    title: options.title,
    startedAt: clock.now(),
    ...ci,
    language: notesLanguage(options),
    commandPrefix: options.config.trigger.command_prefix,
  });
  const notice = interruptedNotice(interrupted, notesLanguage(options));
  if (notice) initial = addNotice(initial, notice);
  for (const extra of options.notices ?? []) initial = addNotice(initial, extra);
  const publisher = await ProgressPublisher.start(
    {
      target: options.target,
      redactor: options.redactor,
      logger,
      clock,
      editIntervalMs: options.config.gitlab.note_edit_interval_ms,
      ...(options.scheduler ? { scheduler: options.scheduler } : {}),
    },
    initial,
  );
  return { runRecords, publisher };
}

/**
 * Wires the report and history layers for one run: records the run start,
 * creates the progress note, and returns the reporter, history and replan
 * ports the run uses.
 */
export async function startReporting(options: ReportingOptions): Promise<Reporting> {
  const { config, logger, clock } = options;
  const paths = statePaths(
    options.repoDir,
    config.state.directory,
    config.planning.history.directory,
  );
  const ci = options.ci ?? {};
  const { runRecords, publisher } = await openProgressNote(options, paths);
  const { archive_after_days: archiveAfterDays, retention_days: retentionDays } =
    config.planning.history;
  await rotateHistoryAtStart({
    directory: paths.historyDir,
    archiveAfterDays,
    retentionDays,
    clock,
    logger,
  });
  const store = new PlanningHistoryStore({
    directory: paths.historyDir,
    taskId: options.taskId,
    runId: options.runId,
    logger,
    clock,
    ...(options.issueId ? { issueId: options.issueId } : {}),
  });
  const context = {
    taskId: options.taskId,
    ...(ci.jobId ? { jobId: ci.jobId } : {}),
    ...(ci.pipelineId ? { pipelineId: ci.pipelineId } : {}),
    ...(ci.jobUrl ? { jobUrl: ci.jobUrl } : {}),
    title: options.title,
    language: notesLanguage(options),
    commandPrefix: config.trigger.command_prefix,
    ...(options.requester ? { requester: options.requester } : {}),
  };
  // the progress note links the ❓ and 🙋 notes posted through this target
  const target = linkingRelatedNotes(options.target, publisher);
  // replanning's modules load once the note is posted
  const { createReplanHook, replanPrompts } = await import('../../phases/replan/index.ts');
  const replan = await createReplanHook({
    config,
    clock,
    logger,
    redactor: options.redactor,
    stateDir: paths.stateDir,
    documents: jsonDocuments(logger),
    key: options.issueId ?? options.taskId,
    prompts: replanPrompts(promptLibrary(config.prompts.directory, context.language)),
    recorder: store,
    notes: { target, context },
    progress: publisher,
    ...(options.answers ? { answers: options.answers } : {}),
  });
  const reporter = new ProgressReporter({
    publisher,
    target,
    metadata: new MetadataStore({ file: paths.metadata, taskId: options.taskId, logger, clock }),
    runRecords,
    runId: options.runId,
    paths,
    repoDir: options.repoDir,
    config,
    context,
    redactor: options.redactor,
    logger,
    clock,
    ...(options.artifactUrl ? { artifactUrl: options.artifactUrl } : {}),
  });
  const source = options.planSource ?? options.taskId;
  const sourceStore =
    source === options.taskId
      ? store
      : new PlanningHistoryStore({ directory: paths.historyDir, taskId: source, logger, clock });
  const startedAt = clock.now();
  const abandon = (end: AbandonedEnd, noteMs: number) =>
    abandonRun(
      {
        paths,
        runRecords,
        publisher,
        runId: options.runId,
        taskId: options.taskId,
        startedAt,
        jobId: ci.jobId,
        pipelineId: ci.pipelineId,
        clock,
        redactor: options.redactor,
        logger,
      },
      end,
      noteMs,
    );
  return {
    reporter,
    history: storeHistory(store, options.issueId, { store: sourceStore, taskId: source }),
    publisher,
    paths,
    replan,
    abandon,
    language: context.language,
  };
}
