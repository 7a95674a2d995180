// The render-notes tool (../shared/tools/render-notes, outside the
// repository): note Markdown in a GitLab-like note frame, screenshotted with
// headless Chromium. It needs its own packages (`npm install` in a copy of
// it, see its README) and /usr/bin/chromium; RENDER_NOTES_DIR names such an
// installed copy. Without one the benches say "skipped: render-notes not found".
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CHROMIUM = '/usr/bin/chromium';

/** The folder of an installed render-notes (its render.mjs and packages), or undefined. */
export function findRenderNotes(): string | undefined {
  if (!existsSync(CHROMIUM)) return undefined;
  const candidates = [
    process.env['RENDER_NOTES_DIR'],
    path.resolve(ROOT, '../shared/tools/render-notes'),
  ].filter((dir): dir is string => Boolean(dir));
  return candidates.find(
    (dir) =>
      existsSync(path.join(dir, 'render.mjs')) &&
      existsSync(path.join(dir, 'node_modules', 'puppeteer-core')),
  );
}

/**
 * Renders each note (name → Markdown) as GitLab shows it, details folded,
 * and returns the height of each page in px (the note with its frame, as
 * render-notes measures it). The screenshots go to `shots` when given.
 */
export function renderedHeights(
  tool: string,
  notes: Readonly<Record<string, string>>,
  shots?: string,
): Record<string, number> {
  const work = mkdtempSync(path.join(os.tmpdir(), 'mr-agent-render-notes-'));
  try {
    const input = path.join(work, 'in');
    execFileSync('mkdir', ['-p', input]);
    for (const [name, body] of Object.entries(notes))
      writeFileSync(path.join(input, `${name}.md`), body);
    const output = execFileSync(
      process.execPath,
      [path.join(tool, 'render.mjs'), input, shots ?? path.join(work, 'out')],
      { cwd: tool, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 },
    );
    const heights: Record<string, number> = {};
    for (const match of output.matchAll(/^(\S+) height (\d+)/gm))
      heights[match[1]!] = Number(match[2]);
    return heights;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
