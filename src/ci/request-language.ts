import type { ReviewThreadRequest } from '../core/gathered.ts';
import { decideLanguage, detectLanguage, hasWords, type Language } from '../messages/language.ts';
import { parseMarker } from '../report/marker.ts';
import type { CiRequestRecord } from './past-history.ts';
import type { PreparedRun } from './prepare.ts';

/** What a CI run answers besides its own comment. */
export interface AnsweredText {
  /** The diff threads the run addresses. */
  threads?: readonly ReviewThreadRequest[] | undefined;
  /** The earlier request a retry, resume, continue or approval carries out again. */
  earlier?: CiRequestRecord | undefined;
}

/** The people's notes of the threads, not the agent's own: what they wrote, as one text. */
function threadsText(run: PreparedRun, threads: readonly ReviewThreadRequest[]): string {
  return threads
    .flatMap((thread) => thread.notes)
    .filter((note) => note.author !== run.bot.username && !parseMarker(note.body))
    .map((note) => note.body)
    .join('\n\n');
}

/** The merge request's or issue's title and description. */
async function targetText(run: PreparedRun): Promise<string> {
  const target = run.request.target;
  if (target.kind === 'none') return '';
  const item =
    target.kind === 'merge_request'
      ? (run.mergeRequest ?? (await run.reads.mergeRequest(target.iid)))
      : await run.reads.issue(target.iid);
  return `${item.title}\n\n${item.description}`;
}

/**
 * The notes' language of a CI run, decided once for everything the run
 * writes: `notes.language` when fixed; with `auto`, the language of the
 * people's own words the run answers — the comment's instruction when it
 * has words, else the review threads it addresses, else the language the
 * earlier run a retry carries out again was written in (or its
 * instruction), else the merge request's or issue's title and description.
 * Never the task title mr-agent writes itself ("Address the review thread
 * on …", "Work on !3"), which is English whoever asked.
 */
export async function requestLanguage(run: PreparedRun, answered: AnsweredText): Promise<Language> {
  const setting = run.config.notes.language;
  if (setting !== 'auto') return setting;
  const said = [run.request.task, answered.threads ? threadsText(run, answered.threads) : ''].find(
    hasWords,
  );
  if (said !== undefined) return detectLanguage(said);
  const earlier = answered.earlier;
  if (earlier?.language) return earlier.language;
  if (earlier && hasWords(earlier.request.task)) return detectLanguage(earlier.request.task);
  // the merge request or issue is read only when nothing before it tells
  return decideLanguage(setting, [await targetText(run)]);
}
