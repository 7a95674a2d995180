/**
 * The demo's review scene (`mr-agent demo --scene review`): @dana asks for
 * `/agent review`, the agent posts its findings as threads on the diff lines,
 * then @dana answers the first thread with `/agent fix this`; a second
 * pipeline makes that change, pushes it, replies in the thread with the
 * commit and resolves it. The model's replies are the review scenario's
 * followed by the fix run's (demo/review-scenario.yaml, demo/llm-scenario.yaml).
 */
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { loadScenario, type Scenario } from '../testkit/openai-server/scenario.ts';
import type { NoteRec } from '../testkit/gitlab-server/index.ts';
import { terminalLines } from '../report/terminal-render.ts';
import { plainLinks, type LiveView } from './live-view.ts';
import type { DemoWorld } from './world.ts';

export const REVIEW_SCENARIO = 'review-scenario.yaml';

/** One diff thread of the merge request as the demo shows it at the end. */
export interface DemoThread {
  discussionId: string;
  where: string;
  resolved: boolean;
  notes: { author: string; body: string }[];
}

/** The review's replies, then the fix run's: one scripted model serves both jobs. */
export async function reviewSceneScenario(dir: string, fixScenario: string): Promise<Scenario> {
  const review = loadScenario(
    await readFile(path.join(dir, REVIEW_SCENARIO), 'utf8'),
    REVIEW_SCENARIO,
  );
  const fix = loadScenario(fixScenario, 'llm-scenario.yaml');
  return { ...fix, replies: [...review.replies, ...fix.replies] };
}

/** The merge request's diff threads, oldest first, with their notes and whether they are resolved. */
export function diffThreads(world: DemoWorld): DemoThread[] {
  const { model } = world.standIn;
  const byThread = new Map<string, NoteRec[]>();
  for (const note of model.notes) {
    if (note.noteableId !== world.mergeRequest.id || note.noteableType !== 'MergeRequest') continue;
    if (!model.review.positions.has(note.discussionId)) continue;
    byThread.set(note.discussionId, [...(byThread.get(note.discussionId) ?? []), note]);
  }
  return [...byThread].map(([discussionId, notes]) => {
    const position = model.review.positions.get(discussionId)!;
    return {
      discussionId,
      where: `${position.newPath}:${position.newLine ?? position.oldLine}`,
      resolved: model.review.resolved.has(discussionId),
      notes: notes.map((n) => ({
        author: model.users.get(n.authorId)?.username ?? String(n.authorId),
        body: n.body,
      })),
    };
  });
}

/** The threads as GitLab shows them: where, resolved or open, each note in a few lines. */
export function printThreads(view: LiveView, threads: readonly DemoThread[]): void {
  for (const thread of threads) {
    view.line(`    ${view.bold(thread.where)} — ${thread.resolved ? 'resolved ✔' : 'open'}`);
    for (const note of thread.notes) {
      const lines = terminalLines(note.body, view.color).filter((l) => l.trim() !== '');
      view.line(`      @${note.author}: ${plainLinks(lines[0] ?? '', true)}`);
      for (const line of lines.slice(1, 4)) view.line(`        ${plainLinks(line, true)}`);
    }
  }
}
