// GitLab API calls for a scripted 20-action run's reporting: check the token
// and the bot, read the MR, its diff and discussion, look for earlier runs'
// notes, award the trigger note, then the real progress publisher (three
// updates per action, each action taking longer than the edit interval),
// a reply in the thread and the final state. Prints the calls by method and
// route as the stand-in counted them, and wall time.
import { performance } from 'node:perf_hooks';
import { checkTokenScopes } from '../src/gitlab/checks.ts';
import { createGitLabClient } from '../src/gitlab/gitbeaker-adapter.ts';
import { GitLabNoteTarget } from '../src/gitlab/note-target.ts';
import { findPastRunNotes } from '../src/gitlab/past-runs.ts';
import { createSilentLogger } from '../src/log/logger.ts';
import { Redactor } from '../src/log/redact.ts';
import { ProgressPublisher } from '../src/report/progress/publisher.ts';
import { initialProgress, setPhaseDetail, startPhase } from '../src/report/progress/state.ts';
import { FakeClock, systemClock } from '../src/core/clock.ts';
import { seedScenario, startGitLabStandIn } from '../src/testkit/gitlab-server/index.ts';

const ACTIONS = 20;
const standIn = await startGitLabStandIn();
try {
  const s = await seedScenario(standIn.model);
  const trigger = standIn.model.addNote({
    on: s.mergeRequest,
    body: '/agent add a farewell',
    authorId: s.developer.id,
  });
  const gitlab = createGitLabClient({
    url: standIn.url,
    token: s.botToken.value,
    clock: systemClock,
  });
  const on = { type: 'merge_request' as const, iid: s.mergeRequest.iid };
  const target = new GitLabNoteTarget(gitlab, s.project.id, on);
  standIn.requests.clear();

  const started = performance.now();
  await checkTokenScopes(gitlab);
  const bot = await gitlab.currentUser();
  await gitlab.getMergeRequest(s.project.id, on.iid);
  await gitlab.listMergeRequestChanges(s.project.id, on.iid);
  await gitlab.listDiscussions(s.project.id, on);
  await findPastRunNotes({ gitlab, project: s.project.id, on, botUserId: bot.id });
  await gitlab.awardEmojiOnNote(s.project.id, on, trigger.id, 'eyes');
  // A fake clock: each flush waits out the edit interval instantly (no real sleeping).
  const clock = new FakeClock();
  const initial = initialProgress({
    taskId: 'bench',
    title: 'Add farewell',
    startedAt: clock.now(),
    jobId: '1',
  });
  const publisher = await ProgressPublisher.start(
    { target, redactor: new Redactor(), logger: createSilentLogger(), clock, editIntervalMs: 1000 },
    startPhase(initial, 'execution', clock.now()),
  );
  for (let i = 1; i <= ACTIONS; i++) {
    for (const step of ['started', 'tool call', 'done'])
      publisher.update((p) => setPhaseDetail(p, 'execution', `action ${i}/${ACTIONS} ${step}`));
    await publisher.flush();
  }
  await target.createNote('Done — see the progress note.', { replyTo: String(trigger.id) });
  await publisher.finish({ state: 'complete', summary: 'All actions done.' });
  const elapsed = performance.now() - started;

  const byRoute = standIn.requests.byRoute();
  const total = Object.values(byRoute).reduce((a, b) => a + b, 0);
  console.log(
    `gitlab-notes: API calls for a scripted ${ACTIONS}-action run (stand-in, ${elapsed.toFixed(0)} ms)`,
  );
  for (const [route, count] of Object.entries(byRoute))
    console.log(`  ${String(count).padStart(4)}  ${route}`);
  console.log(`  ${String(total).padStart(4)}  total`);
} finally {
  await standIn.close();
}
