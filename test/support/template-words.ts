/**
 * English that mr-agent itself writes, found in a note meant for Japanese
 * readers. The template words are taken from the message catalog: every word
 * of the English texts (placeholders and inline code left out), less the words
 * the Japanese texts keep as they are (names such as GitLab). A word a test
 * names as allowed (what the model wrote, names in the request) is no leak.
 * Nothing here is a hand-made list: a new English text is checked as soon as
 * it is in the catalog.
 */
import type { Message } from '../../src/messages/en.ts';
import { wholeCatalogs } from '../../src/report/notes/registry.ts';
import { englishWords, renderGitLab, type RenderedNote } from './gitlab-markdown.ts';

function forms(message: Message): string[] {
  return typeof message === 'string' ? [message] : [message.one, message.other];
}

function wordsOf(texts: readonly string[]): Set<string> {
  const words = new Set<string>();
  for (const text of texts) {
    const prose = text
      .replace(/`[^`]*`/g, ' ')
      .replace(/\{\w+\}/g, ' ')
      .replace(/\bhttps?:\/\/\S+/g, ' ');
    for (const [word] of prose.matchAll(/[A-Za-z][A-Za-z'’]+/g)) words.add(word.toLowerCase());
  }
  return words;
}

let cached: ReadonlySet<string> | undefined;

/** Every English template word of the catalog, lower-case. */
export function englishTemplateWords(): ReadonlySet<string> {
  if (cached) return cached;
  const catalogs = wholeCatalogs();
  const english = wordsOf(Object.values(catalogs.en).flatMap(forms));
  const keptInJapanese = wordsOf(Object.values(catalogs.ja).flatMap(forms));
  cached = new Set([...english].filter((w) => !keptInJapanese.has(w)));
  return cached;
}

let acronyms: ReadonlySet<string> | undefined;

/** The catalog's upper-case English words (`API`, `HTTP`), as written. */
function englishAcronyms(): ReadonlySet<string> {
  if (acronyms) return acronyms;
  const catalogs = wholeCatalogs();
  const caps = (texts: readonly string[]) =>
    new Set(
      texts
        .flatMap((t) => t.replace(/`[^`]*`|\{\w+\}/g, ' ').match(/\b[A-Z]{2,}\b/g) ?? [])
        .filter(Boolean),
    );
  const kept = caps(Object.values(catalogs.ja).flatMap(forms));
  acronyms = new Set(
    [...caps(Object.values(catalogs.en).flatMap(forms))].filter((w) => !kept.has(w)),
  );
  return acronyms;
}

/**
 * The English template words in a note's prose as GitLab shows it (code,
 * code blocks, links' targets and @mentions left out), folds included.
 */
export function templateLeaks(
  body: string | RenderedNote,
  allowed: ReadonlySet<string> = new Set(),
): string[] {
  const rendered = typeof body === 'string' ? renderGitLab(body) : body;
  // file paths and names (`http/retry.py`, `tests/`) are data, whatever words they hold
  const note = {
    ...rendered,
    lines: rendered.lines.map((l) => ({
      ...l,
      prose: l.prose.replace(/[\w.-]*\/[\w./-]*|\b[\w-]+\.[a-z]{1,4}\b/g, ' '),
    })),
  };
  const template = englishTemplateWords();
  const lowerAllowed = new Set([...allowed].map((w) => w.toLowerCase()));
  return englishWords(note).filter((w) => {
    if (lowerAllowed.has(w.toLowerCase())) return false;
    // an acronym (GET, HTTP) is a template word only where the catalog writes it so
    if (w.length > 1 && w === w.toUpperCase()) return englishAcronyms().has(w);
    return template.has(w.toLowerCase());
  });
}

/** Internal ids (`task_1`, `A3:`, `AC-2`) and raw state or replan constants. */
const INTERNAL =
  /\btask_[\w.-]+|\b[A-Z]{1,3}\d+:|\bAC-\d+\b|\b(?:RUNNING|COMPLETE|FAILED|PASS_WITH_SUGGESTIONS|partial_replan|action_regeneration|task_redecomposition|awaiting_answer|needs_human)\b/g;

/** Internal ids outside the folds (code blocks left out, inline code not). */
export function visibleInternalIds(body: string | RenderedNote): string[] {
  const note = typeof body === 'string' ? renderGitLab(body) : body;
  return note.lines
    .filter((l) => !l.folded && l.block !== 'fence')
    .flatMap((l) => [...l.text.matchAll(INTERNAL)].map((m) => m[0]));
}
