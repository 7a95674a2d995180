/**
 * Renders the progress note from `ProgressState` — a
 * pure function of the state, with no clock inside, so an unchanged state
 * renders the same text and the publisher can skip the edit.
 *
 * Layout: the hidden marker; the state, the change and the next step (three
 * paragraphs); the result; the plan checklist; the acceptance criteria; one
 * 💡 line for a reviewer's suggestion; then everything else folded in one
 * `<details>` ("Run details · …"); a footer. The first version (nothing has
 * happened yet) is only the top three lines and the footer.
 */
import { renderMarker } from '../marker.ts';
import { PHASES, type ProgressState } from '../../core/progress/model.ts';
import { keepLineBreaks, oneLine, safeProse } from '../markdown.ts';
import { EMOJI } from '../vocabulary.ts';
import { planSection } from './checklist.ts';
import { runDetails } from './details.ts';
import { headline, noteState, voiceOf, type Voice } from './headline.ts';
import { checklistProgress, currentPhase } from '../../core/progress/updates.ts';
import { defineMessages } from '../../messages/catalog.ts';
import { defineNote } from '../note-definition.ts';

/**
 * The progress note, edited in place as the run goes on. Its texts are the
 * shared catalog's: the summary note and the status reply reuse its heading,
 * change line and next step.
 */
export const PROGRESS_NOTE = defineNote({
  name: 'progress',
  purpose: 'the one progress note per run, edited in place until the run ends',
  messages: defineMessages({ en: {}, ja: {} }),
});

function result(s: ProgressState, v: Voice): string[] {
  if (noteState(s) !== 'complete') return [];
  return ['', keepLineBreaks(safeProse(s.final!.summary)) || `_${v.m('result.none')}_`];
}

function notices(s: ProgressState): string[] {
  return s.notices.flatMap((n) => ['', `> ${EMOJI.warning} ${oneLine(safeProse(n), 500)}`]);
}

/** The acceptance criteria as a checklist, with how many are met. */
export function criteriaSection(s: ProgressState, v: Voice): string[] {
  const criteria = s.facts?.criteria ?? [];
  if (criteria.length === 0) return [];
  const met = criteria.filter((c) => c.passed).length;
  const head = `**${v.m('criteria.heading')}** — ${v.m('criteria.met', { met, total: criteria.length })}`;
  const items = criteria.map(
    (c) => `- [${c.passed ? 'x' : ' '}] ${oneLine(safeProse(c.text), 300)}`,
  );
  return ['', head, '', ...items];
}

/** `path/to/file.py:12` (a file and a line) in a reviewer's text. */
const FILE_LINE = /(?<![\w/.\-[(`])((?:[\w.-]+\/)*[\w-][\w.-]*\.[A-Za-z0-9]+):(\d+)\b/g;

/**
 * Where the run's change can be read: the project's page (from the job's
 * link) at the pushed commit, else undefined (nothing to link to).
 */
function blobBase(s: ProgressState): string | undefined {
  const project = /^(https?:\/\/.+?)\/-\/jobs\/\d+/.exec(s.jobUrl ?? '')?.[1];
  const commit = s.facts?.delivery?.commit;
  if (!project || !commit || !/^[0-9a-f]{7,64}$/.test(commit)) return undefined;
  return `${project}/-/blob/${commit}`;
}

/** A reviewer's text with each `file:line` it names linked to that line of the change. */
function linkFileLines(text: string, s: ProgressState): string {
  const base = blobBase(s);
  if (!base) return text;
  return text.replace(FILE_LINE, (all: string, file: string, line: string) =>
    file.includes('..') ? all : `[${all}](${base}/${file}#L${line})`,
  );
}

/** The latest reviewer suggestion, as one 💡 line; the files and lines it names are links. */
export function suggestion(s: ProgressState, v: Voice): string[] {
  const last = [...s.reviews]
    .reverse()
    .find((r) => r.result === 'PASS_WITH_SUGGESTIONS' && r.feedback?.trim());
  if (!last) return [];
  const text = linkFileLines(oneLine(safeProse(last.feedback!), 400), s);
  return ['', `> ${EMOJI.suggestion} **${v.m('review.suggestion')}** ${text}`];
}

function footer(s: ProgressState, v: Voice): string {
  const job = s.jobId
    ? v.m('footer.job', { job: oneLine(s.jobId, 20).replace(/[<>]/g, '') })
    : v.m('footer.local');
  return `<sub>${v.m(s.final ? 'footer.final' : 'footer.live')} · ${job}</sub>`;
}

/** The phase the run is in, or (ended) the last one it entered. */
function markerPhase(s: ProgressState): string | undefined {
  // a phase paused for an answer is `pending` again, but it was entered
  const entered = PHASES.filter((p) => s.phases[p].startedAt !== undefined && p !== 'complete');
  return currentPhase(s) ?? entered.at(-1);
}

/** The hidden marker, with what `/agent status` reads: state, phase, steps, the ❓ note. */
function progressMarker(s: ProgressState): string {
  const steps = s.plan?.current.items.length ? checklistProgress(s.plan.current.items) : undefined;
  const question = /#note_(\d+)$/.exec(s.related?.question ?? '')?.[1];
  return renderMarker({
    kind: 'progress',
    job: s.jobId,
    pipeline: s.pipelineId,
    task: s.taskId,
    state: s.final ? s.final.state : 'running',
    phase: markerPhase(s),
    done: steps ? String(steps.done) : undefined,
    total: steps ? String(steps.total) : undefined,
    question,
    usd: spentUsd(s),
  });
}

/** What the run spent so far in USD, for the merge request's budget; undefined without prices. */
function spentUsd(s: ProgressState): string | undefined {
  const usd = s.budget?.priced ? s.budget.spentUsd : s.usage.costUsd;
  return usd === undefined ? undefined : usd.toFixed(6);
}

/** The full progress-note markdown, hidden marker first. */
export function renderProgressNote(s: ProgressState): string {
  const v = voiceOf(s);
  const marker = progressMarker(s);
  const lines = [
    marker,
    ...headline(s, v),
    ...result(s, v),
    ...notices(s),
    ...planSection(s.plan, v),
    ...criteriaSection(s, v),
    ...suggestion(s, v),
    ...runDetails(s, v),
    '',
    footer(s, v),
  ];
  return `${lines.join('\n')}\n`;
}
