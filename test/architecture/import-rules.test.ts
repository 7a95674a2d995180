import { expect } from 'chai';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CONFIG = path.join(ROOT, '.dependency-cruiser.cjs');
const DEPCRUISE = path.join(ROOT, 'node_modules/.bin/depcruise');

/** Runs the import rules of `npm run lint` on a `src/` tree; files are path → source. */
async function cruise(files: Record<string, string>) {
  const dir = await mkdtemp(path.join(tmpdir(), 'mr-agent-layers-'));
  try {
    for (const [file, text] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
      await writeFile(path.join(dir, file), text);
    }
    return await execa(DEPCRUISE, ['src', '--config', CONFIG], { cwd: dir, reject: false });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('architecture: the import rules of npm run lint', function () {
  // dependency-cruiser reads all of src/ (a few seconds on an idle machine)
  this.timeout(120_000);

  it('pass on src/ as it is: no folder cycle, no file cycle, imports point down the layers', async () => {
    const result = await execa(DEPCRUISE, ['src', '--config', CONFIG], {
      cwd: ROOT,
      reject: false,
    });
    expect(result.stdout).to.contain('no dependency violations found');
    expect(result.exitCode).to.equal(0);
  });

  it('fail on a cycle between two folders, type-only imports included', async () => {
    const result = await cruise({
      'src/tools/x.ts': "import { y } from '../shell/y.ts';\nexport const x = y;\n",
      'src/shell/y.ts':
        "import type { x } from '../tools/x.ts';\nexport const y = 1;\nexport type X = typeof x;\n",
    });
    expect(result.exitCode).to.not.equal(0);
    expect(result.stdout).to.contain('no-folder-cycle');
  });

  it('fail on a cycle between two files of one folder', async () => {
    const result = await cruise({
      'src/core/a.ts': "import { b } from './b.ts';\nexport const a = () => b;\n",
      'src/core/b.ts': "import { a } from './a.ts';\nexport const b = () => a;\n",
    });
    expect(result.exitCode).to.not.equal(0);
    expect(result.stdout).to.contain('no-file-cycle');
  });

  it('fail when a phase imports the run layer, or the kernel an adapter', async () => {
    const result = await cruise({
      'src/phases/plan/step.ts':
        "import { r } from '../../run/orchestrator.ts';\nexport const p = r;\n",
      'src/run/orchestrator.ts': 'export const r = 1;\n',
      'src/core/clock.ts': "import { g } from '../gitlab/port.ts';\nexport const c = g;\n",
      'src/gitlab/port.ts': 'export const g = 1;\n',
    });
    expect(result.exitCode).to.not.equal(0);
    expect(result.stdout).to.contain('phases-below-run');
    expect(result.stdout).to.contain('kernel-stays-at-the-bottom');
  });

  it('fail when the CI job imports the webhook bridge, or the shared commands an entry', async () => {
    const result = await cruise({
      'src/ci/prepare.ts': "import { b } from '../trigger/bridge.ts';\nexport const p = b;\n",
      'src/trigger/bridge.ts': 'export const b = 1;\n',
      'src/commands/dispatch.ts': "import { s } from '../cli/serve.ts';\nexport const d = s;\n",
      'src/cli/serve.ts': 'export const s = 1;\n',
    });
    expect(result.exitCode).to.not.equal(0);
    expect(result.stdout).to.contain('job-apart-from-bridge');
    expect(result.stdout).to.contain('run-below-entries');
  });

  it('fail when a phase imports an I/O adapter (git, GitLab, the history, the model) instead of a port', async () => {
    const result = await cruise({
      'src/phases/plan/step.ts': [
        "import { Git } from '../../shell/git.ts';",
        "import { post } from '../../gitlab/posts.ts';",
        "import { save } from '../../history/atomic.ts';",
        "import { promptFiles } from '../../llm/prompt-files.ts';",
        "import type { Entry } from '../../history/entries.ts';",
        "import { sandboxEnv } from '../../shell/sandbox-env.ts';",
        'export const p: unknown[] = [Git, post, save, promptFiles, sandboxEnv];',
        'export type E = Entry;',
      ].join('\n'),
      'src/shell/git.ts': 'export class Git {}\n',
      'src/shell/sandbox-env.ts': 'export const sandboxEnv = 1;\n',
      'src/gitlab/posts.ts': 'export const post = 1;\n',
      'src/history/atomic.ts': 'export const save = 1;\n',
      'src/history/entries.ts': 'export type Entry = number;\n',
      'src/llm/prompt-files.ts': 'export const promptFiles = 1;\n',
    });
    expect(result.exitCode).to.not.equal(0);
    const violations = result.stdout.split('\n').filter((l) => l.includes('phases-use-ports'));
    expect(violations.map((l) => l.replace(/.*→ /, '').trim()).sort()).to.deep.equal([
      'src/gitlab/posts.ts',
      'src/history/atomic.ts',
      'src/llm/prompt-files.ts',
      'src/shell/git.ts',
    ]);
  });
});
