// GitLab API calls for a scripted note sequence (the shape of one run's
// reporting): check the token and the bot, read the MR and its discussion,
// look for earlier runs' notes, create the progress note once, edit it after
// each of 20 actions, reply in a thread and award the trigger note. Prints the
// calls by method and route as the stand-in counted them, and wall time.
import { performance } from 'node:perf_hooks';
import { checkTokenScopes } from '../src/gitlab/checks.ts';
import { createGitLabClient } from '../src/gitlab/gitbeaker-adapter.ts';
import { GitLabNoteTarget } from '../src/gitlab/note-target.ts';
import { findPastRunNotes } from '../src/gitlab/past-runs.ts';
import { renderMarker } from '../src/report/marker.ts';
import { systemClock } from '../src/run/clock.ts';
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
  const marker = renderMarker({
    kind: 'progress',
    job: '1',
    pipeline: '1',
    task: 'bench',
    state: 'running',
  });
  const note = await target.createNote(`${marker}\nstarting`);
  for (let i = 1; i <= ACTIONS; i++)
    await target.editNote(note.id, `${marker}\naction ${i}/${ACTIONS} done`);
  await target.createNote('Done — see the progress note.', { replyTo: String(trigger.id) });
  await target.editNote(
    note.id,
    renderMarker({ kind: 'progress', job: '1', pipeline: '1', task: 'bench', state: 'success' }),
  );
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
