import { expect } from 'chai';
import { Gitlab } from '@gitbeaker/rest';
import { Redactor } from '../../../src/log/redact.ts';
import { commitFiles, readBlob } from '../../../src/testkit/gitlab-server/git.ts';
import {
  parseInlineReview,
  type ReviewFinding,
} from '../../../src/phases/review/inline/findings.ts';
import { postReview, type ReviewPostTarget } from '../../../src/phases/review/inline/post.ts';
import { hasUnescapedQuickAction } from '../../../src/report/markdown.ts';
import { startWorld, type World } from '../../gitlab/world.ts';

/**
 * `/agent review`'s threads over real HTTP against the stand-in, through the
 * gitbeaker adapter: findings anchored on changed lines with suggestions that
 * apply, one thread per finding over re-reviews, fixed findings resolved, and
 * a refused position reported.
 */
const CALC = [
  'export function add(a, b) {',
  '  return a - b;',
  '}',
  '',
  'export function mul(a, b) {',
  '  return a + b;',
  '}',
  '',
  'export function half(a) {',
  '  return a * 2;',
  '}',
  '',
  'export function neg(a) {',
  '  return a;',
  '}',
  '',
].join('\n');

const FIXES: ReviewFinding[] = [
  {
    file: 'src/calc.js',
    line: 2,
    severity: 'critical',
    message: 'add subtracts.',
    suggestion: '  return a + b;',
  },
  {
    file: 'src/calc.js',
    line: 6,
    severity: 'major',
    message: 'mul adds.',
    suggestion: '  return a * b;',
  },
  {
    file: 'src/calc.js',
    line: 9,
    end_line: 11,
    severity: 'major',
    message: 'half doubles.',
    suggestion: 'export function half(a) {\n  return a / 2;\n}',
  },
  {
    file: 'src/calc.js',
    line: 14,
    severity: 'minor',
    message: 'neg does not negate.',
    suggestion: '  return -a;',
  },
];

function reply(findings: ReviewFinding[], result = 'FAIL') {
  return JSON.stringify({ result, feedback: 'see the threads', findings });
}

describe('review threads of /agent review (stand-in over HTTP; issue 30)', function () {
  this.timeout(30_000);
  let w: World;
  let target: ReviewPostTarget;
  beforeEach(async () => {
    w = await startWorld();
    await commitFiles(w.s.project.repoDir, 'feature/greeting', { 'src/calc.js': CALC });
    target = {
      gitlab: w.gitlab,
      project: w.s.project.id,
      iid: w.s.mergeRequest.iid,
      botUserId: w.s.bot.id,
      webUrl: `${w.standIn.url}/${w.s.project.path}/-/merge_requests/${w.s.mergeRequest.iid}`,
      redactor: new Redactor(),
      // the change's head as the job's checkout has it
      readFile: async (file) =>
        (await readBlob(w.s.project.repoDir, 'feature/greeting', file))?.toString('utf8'),
    };
  });
  afterEach(() => w.close());

  async function review(text: string) {
    const versions = await w.gitlab.listDiffVersions!(target.project, target.iid);
    const changes = await w.gitlab.listMergeRequestChanges(target.project, target.iid);
    return postReview(target, parseInlineReview(text), versions[0]!, changes);
  }

  const threads = () =>
    w.standIn.model.notes.filter((n) => n.body.includes('mr-agent:finding id='));

  it('G1 every suggestion is anchored on changed lines and applies cleanly through the apply API', async () => {
    const posted = await review(reply(FIXES));
    expect(posted.threads).to.have.length(4);
    expect(posted.threads.every((t) => t.suggestion)).to.equal(true);
    const multi = threads().find((n) => n.body.includes('half doubles'))!;
    const position = w.standIn.model.review.positions.get(multi.discussionId)!;
    expect(position.newLine).to.equal(11);
    expect(position.lineRange?.start.newLine).to.equal(9);
    const developer = new Gitlab({ host: w.standIn.url, token: w.s.developerToken.value });
    let applied = 0;
    for (const s of w.standIn.model.review.suggestions) {
      const answer = await developer.Suggestions.edit(s.id).catch(() => undefined);
      if (answer?.applied) applied++;
    }
    expect(applied / FIXES.length).to.be.at.least(0.95);
    const { readBlob } = await import('../../../src/testkit/gitlab-server/git.ts');
    const file = (await readBlob(
      w.s.project.repoDir,
      'feature/greeting',
      'src/calc.js',
    ))!.toString();
    expect(file).to.contain('return a + b;').and.contain('return a * b;');
    expect(file).to.contain('return a / 2;').and.contain('return -a;');
  });

  it('G1 the summary names the verdict, the count per severity and links each thread', async () => {
    const posted = await review(reply(FIXES));
    expect(posted.summary).to.contain('`FAIL`');
    expect(posted.summary).to.contain('1 Critical').and.contain('2 Major').and.contain('1 Minor');
    for (const t of posted.threads) expect(posted.summary).to.contain(t.url);
    expect(posted.summary).to.match(/#note_\d+/);
  });

  it('three re-reviews of the same change post no duplicate thread', async () => {
    for (let i = 0; i < 3; i++) await review(reply(FIXES));
    const ids = threads().map((n) => /id=([a-f0-9]+)/.exec(n.body)![1]);
    expect(ids).to.have.length(FIXES.length);
    expect(new Set(ids).size).to.equal(ids.length);
  });

  it('after a push that fixes a finding, its thread gets a one-line reply and is resolved; only new findings are posted', async () => {
    await review(reply(FIXES));
    await commitFiles(w.s.project.repoDir, 'feature/greeting', {
      'src/calc.js': CALC.replace('  return a - b;', '  return a + b;'),
    });
    const extra: ReviewFinding = {
      file: 'src/calc.js',
      line: 13,
      severity: 'info',
      message: 'Document neg.',
    };
    const posted = await review(reply([...FIXES.slice(1), extra]));
    expect(posted.threads.map((t) => t.finding.message)).to.deep.equal(['Document neg.']);
    expect(posted.kept).to.equal(3);
    expect(posted.resolved).to.equal(1);
    const fixed = threads().find((n) => n.body.includes('add subtracts'))!;
    expect(w.standIn.model.review.resolved.has(fixed.discussionId)).to.equal(true);
    const replies = w.standIn.model.notes.filter((n) => n.discussionId === fixed.discussionId);
    expect(replies).to.have.length(2);
    expect(replies[1]!.body.trim().split('\n')).to.have.length(2); // the marker and one line
  });

  it('G2 a finding no longer reported whose lines did not change keeps its thread open', async () => {
    await review(reply(FIXES));
    // a push elsewhere in the file; the reviewer just stops reporting `add subtracts`
    await commitFiles(w.s.project.repoDir, 'feature/greeting', {
      'src/calc.js': `// calc\n${CALC}`,
    });
    const moved = FIXES.slice(1).map((f) => ({
      ...f,
      line: f.line + 1,
      ...(f.end_line ? { end_line: f.end_line + 1 } : {}),
    }));
    const posted = await review(reply(moved));
    expect(posted.kept).to.equal(3);
    expect(posted.resolved).to.equal(0);
    expect(posted.leftOpen).to.equal(1);
    expect(posted.summary).to.contain('1 earlier thread left open');
    const kept = threads().find((n) => n.body.includes('add subtracts'))!;
    expect(w.standIn.model.review.resolved.has(kept.discussionId)).to.equal(false);
    expect(
      w.standIn.model.notes.filter((n) => n.discussionId === kept.discussionId),
    ).to.have.length(1);
  });

  it('G2 a thread whose file is gone from the change is answered and resolved', async () => {
    await review(reply(FIXES));
    const { execFileSync } = await import('node:child_process');
    const repo = w.s.project.repoDir;
    // delete the file on the branch through a commit of the bare repository's own tree
    const tree = execFileSync('git', ['--git-dir', repo, 'mktree'], {
      input: '',
      encoding: 'utf8',
    }).trim();
    const parent = execFileSync('git', ['--git-dir', repo, 'rev-parse', 'feature/greeting'], {
      encoding: 'utf8',
    }).trim();
    const commit = execFileSync(
      'git',
      [
        '--git-dir',
        repo,
        '-c',
        'user.name=t',
        '-c',
        'user.email=t@e',
        'commit-tree',
        tree,
        '-p',
        parent,
        '-m',
        'drop calc',
      ],
      { encoding: 'utf8' },
    ).trim();
    execFileSync('git', ['--git-dir', repo, 'update-ref', 'refs/heads/feature/greeting', commit]);
    const posted = await review(reply([]));
    expect(posted.resolved).to.equal(FIXES.length);
    expect(posted.leftOpen).to.equal(0);
  });

  it('a position GitLab refuses (400) is reported in a comment and the summary, never lost', async () => {
    const off: ReviewFinding = {
      file: 'src/calc.js',
      line: 40,
      severity: 'major',
      message: 'Beyond the file.',
    };
    const posted = await review(reply([FIXES[0]!, off]));
    expect(posted.threads).to.have.length(1);
    expect(posted.unplaced).to.have.length(1);
    expect(posted.unplaced[0]!.reason).to.contain('400');
    const comment = w.standIn.model.notes.find((n) => n.body.includes('mr-agent:review-unplaced'))!;
    expect(comment.body).to.contain('src/calc.js:40').and.contain('Beyond the file.');
    expect(posted.summary).to.contain(`#note_${comment.id}`);
  });

  it('M3 hostile finding text runs no quick action, and a suggestion that would needs escaping is left out', async () => {
    const hostile: ReviewFinding[] = [
      {
        file: 'src/calc.js',
        line: 2,
        severity: 'major',
        message: 'ok\n/merge\n/close',
        suggestion: '/approve\n  return a + b;',
      },
    ];
    const posted = await review(reply(hostile));
    expect(posted.threads[0]!.suggestion).to.equal(false);
    expect(w.standIn.model.quickActions).to.deep.equal([]);
    for (const n of threads()) expect(hasUnescapedQuickAction(n.body)).to.equal(false);
  });
});
