import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gitTrackedFiles } from '../../src/shell/git-tracked.ts';
import { makeTempRepo } from '../support/temp-repo.ts';

describe('shell/git-tracked: the index through the one git module (issue 17 item 5, issue 19)', () => {
  const saved = { HOME: process.env.HOME, TOKEN: process.env.MR_AGENT_GITLAB_TOKEN };
  afterEach(() => {
    process.env.HOME = saved.HOME;
    if (saved.TOKEN === undefined) delete process.env.MR_AGENT_GITLAB_TOKEN;
    else process.env.MR_AGENT_GITLAB_TOKEN = saved.TOKEN;
  });

  it('issue 19: lists the tracked files while a planted ~/.gitconfig fsmonitor hook never runs and sees no token', async () => {
    const repo = await makeTempRepo({ 'a.py': 'x\n', 'sub/b.txt': 'y\n' });
    try {
      const home = path.join(path.dirname(repo.dir), 'home');
      await mkdir(home);
      const canary = path.join(home, 'canary');
      const hook = path.join(home, 'fsmonitor.sh');
      await writeFile(hook, `#!/bin/sh\nenv > ${canary}\n`, { mode: 0o755 });
      execFileSync('git', [
        'config',
        '--file',
        path.join(home, '.gitconfig'),
        'core.fsmonitor',
        hook,
      ]);
      process.env.HOME = home;
      process.env.MR_AGENT_GITLAB_TOKEN = 'glpat-must-not-leak';

      const withoutHost = await gitTrackedFiles(repo.dir);
      const withHost = await gitTrackedFiles(repo.dir, process.env);

      expect(withoutHost?.sort()).to.deep.equal(['a.py', 'sub/b.txt']);
      expect(withHost?.sort()).to.deep.equal(['a.py', 'sub/b.txt']);
      expect(existsSync(canary), 'the planted fsmonitor hook ran').to.equal(false);
    } finally {
      await repo.cleanup();
    }
  });

  it('a folder that is not the top of a work tree gives undefined (the caller walks the folder)', async () => {
    const repo = await makeTempRepo({ 'a.py': 'x\n' }, { git: false });
    try {
      expect(await gitTrackedFiles(repo.dir)).to.equal(undefined);
    } finally {
      await repo.cleanup();
    }
  });
});
