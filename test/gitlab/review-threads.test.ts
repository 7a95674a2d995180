import { expect } from 'chai';
import { Gitlab } from '@gitbeaker/rest';
import { execFileSync } from 'node:child_process';
import { ExternalServiceError } from '../../src/errors/errors.ts';
import type { DiffPosition } from '../../src/core/gitlab-port.ts';
import { commitFiles } from '../../src/testkit/gitlab-server/git.ts';
import { lineCode } from '../../src/testkit/gitlab-server/review-state.ts';
import { startWorld, type World } from './world.ts';

/**
 * Review threads in a merge request's diff, over HTTP through the gitbeaker
 * adapter against the stand-in, as GitLab documents them: diff versions
 * (merge_requests.md), threads with a text position and `line_range`,
 * resolving a thread (discussions.md), and applying a suggestion
 * (suggestions.md). The scenario's merge request changes line 2 of
 * src/greet.js.
 */
describe('review threads in the diff (stand-in, gitbeaker adapter; issue 30)', function () {
  this.timeout(20_000);
  let w: World;
  beforeEach(async () => (w = await startWorld()));
  afterEach(() => w.close());

  const mr = () => w.s.mergeRequest.iid;
  const project = () => w.s.project.id;

  async function latest() {
    const versions = await w.gitlab.listDiffVersions!(project(), mr());
    return versions[0]!;
  }

  function at(
    version: { baseSha: string; startSha: string; headSha: string },
    line: Partial<DiffPosition>,
  ): DiffPosition {
    return {
      baseSha: version.baseSha,
      startSha: version.startSha,
      headSha: version.headSha,
      oldPath: 'src/greet.js',
      newPath: 'src/greet.js',
      oldLine: undefined,
      newLine: undefined,
      ...line,
    };
  }

  it('the versions list names the merge request head, its target and their merge base, newest first; a push adds one', async () => {
    const first = await latest();
    const repo = w.s.project.repoDir;
    const git = (...args: string[]) =>
      execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();
    expect(first.headSha).to.equal(git('rev-parse', 'refs/heads/feature/greeting'));
    expect(first.startSha).to.equal(git('rev-parse', 'refs/heads/main'));
    expect(first.baseSha).to.equal(git('merge-base', 'main', 'feature/greeting'));
    await commitFiles(repo, 'feature/greeting', { 'src/extra.js': 'export const x = 1;\n' });
    const versions = await w.gitlab.listDiffVersions!(project(), mr());
    expect(versions).to.have.length(2);
    expect(versions[0]!.headSha).to.equal(git('rev-parse', 'refs/heads/feature/greeting'));
    expect(versions[1]!.id).to.equal(first.id);
  });

  it('a thread on an added line is a DiffNote with its position; resolving it shows in every read', async () => {
    const v = await latest();
    const thread = await w.gitlab.createDiffDiscussion!(
      project(),
      mr(),
      'Consider a default name.',
      at(v, { newLine: 2 }),
    );
    const note = thread.notes[0]!;
    expect(note.position).to.include({ newPath: 'src/greet.js', newLine: 2, headSha: v.headSha });
    expect(note.position!.oldLine).to.equal(undefined);
    expect(note.resolved).to.equal(false);
    const resolved = await w.gitlab.resolveDiscussion!(project(), mr(), thread.id, true);
    expect(resolved.notes[0]!.resolved).to.equal(true);
    const again = await w.gitlab.getDiscussion(
      project(),
      { type: 'merge_request', iid: mr() },
      thread.id,
    );
    expect(again!.notes[0]!.resolved).to.equal(true);
  });

  it('a thread on a removed line names only the old line; an unchanged line needs both', async () => {
    const v = await latest();
    const removed = await w.gitlab.createDiffDiscussion!(
      project(),
      mr(),
      'old',
      at(v, { oldLine: 2 }),
    );
    expect(removed.notes[0]!.position).to.include({ oldLine: 2 });
    const context = await w.gitlab.createDiffDiscussion!(
      project(),
      mr(),
      'context',
      at(v, { oldLine: 1, newLine: 1 }),
    );
    expect(context.notes[0]!.position).to.include({ oldLine: 1, newLine: 1 });
  });

  it("a position on no line of the diff gets GitLab's 400 (no line code) and leaves no note", async () => {
    const v = await latest();
    const before = w.standIn.model.notes.length;
    let error: unknown;
    try {
      await w.gitlab.createDiffDiscussion!(project(), mr(), 'nowhere', at(v, { newLine: 40 }));
    } catch (e) {
      error = e;
    }
    expect(error).to.be.instanceOf(ExternalServiceError);
    expect((error as ExternalServiceError).status).to.equal(400);
    expect((error as Error).message).to.contain('must be a valid line code');
    expect(w.standIn.model.notes.length).to.equal(before);
  });

  it('a multi-line thread keeps its line_range', async () => {
    const v = await latest();
    const code = (o: number, n: number) => lineCode('src/greet.js', o, n);
    const thread = await w.gitlab.createDiffDiscussion!(
      project(),
      mr(),
      'these lines',
      at(v, {
        newLine: 3,
        oldLine: 3,
        lineRange: {
          start: { lineCode: code(0, 2), type: 'new', oldLine: undefined, newLine: 2 },
          end: { lineCode: code(3, 3), type: undefined, oldLine: 3, newLine: 3 },
        },
      }),
    );
    const range = thread.notes[0]!.position!.lineRange!;
    expect(range.start).to.include({ lineCode: code(0, 2), newLine: 2 });
    expect(range.end).to.include({ lineCode: code(3, 3), newLine: 3 });
  });

  it('a suggestion block becomes a suggestion that applies as a commit on the source branch and resolves the thread', async () => {
    const v = await latest();
    const body = 'Greet politely.\n\n```suggestion:-0+1\n  return `Good day, ${name}!`;\n}\n```\n';
    const thread = await w.gitlab.createDiffDiscussion!(
      project(),
      mr(),
      body,
      at(v, { newLine: 2 }),
    );
    const [suggestion] = w.standIn.model.review.suggestions;
    expect(suggestion).to.include({ fromLine: 2, toLine: 3, path: 'src/greet.js' });
    const developer = new Gitlab({ host: w.standIn.url, token: w.s.developerToken.value });
    const applied = await developer.Suggestions.edit(suggestion!.id);
    expect(applied).to.include({ applied: true, from_line: 2, to_line: 3 });
    const repo = w.s.project.repoDir;
    const file = execFileSync('git', ['show', 'feature/greeting:src/greet.js'], {
      cwd: repo,
      encoding: 'utf8',
    });
    expect(JSON.stringify(file)).to.equal(
      JSON.stringify('export function greet(name) {\n  return `Good day, ${name}!`;\n}\n'),
    );
    const again = await w.gitlab.getDiscussion(
      project(),
      { type: 'merge_request', iid: mr() },
      thread.id,
    );
    expect(again!.notes[0]!.resolved).to.equal(true);
    // a second apply is refused with GitLab's reason
    let refused: unknown;
    await developer.Suggestions.edit(suggestion!.id).catch((e: unknown) => (refused = e));
    expect(String((refused as { cause?: { description?: string } }).cause?.description)).to.contain(
      "Can't apply this suggestion.",
    );
  });
});
