// Writes every note of the gallery (test/report/gallery.ts) as Markdown files
// into a folder, for screenshots with the render-notes tool (docs/notes.md):
//   npx tsx scripts/note-gallery.ts /tmp/notes-md
//   node render.mjs /tmp/notes-md /tmp/notes-shots   # the render-notes tool
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { LANGUAGES } from '../src/messages/language.ts';
import { gallery } from '../test/report/gallery.ts';

const out = process.argv[2];
if (!out) {
  console.error('usage: tsx scripts/note-gallery.ts <folder>');
  process.exit(2);
}
mkdirSync(out, { recursive: true });
let count = 0;
for (const language of LANGUAGES) {
  for (const [name, body] of gallery(language)) {
    writeFileSync(path.join(out, `${language}-${name}.md`), body);
    count += 1;
  }
}
console.log(`${count} notes written to ${out}`);
