import { AMOUNT } from './amount.ts';
import { proseLines } from './markdown-mask.ts';
import { isVerb, VERB_NAMES, verbRow, type Verb } from './verbs.ts';

/**
 * Comment commands. A command is the prefix (default `/agent`) at the start
 * of a prose line of the comment — within three spaces of the line start,
 * never inside code blocks, inline code, quotes or HTML comments — followed
 * by a space or the end of the line. The first such line counts.
 *
 * The verbs and how each is read are the rows of verbs.ts: an `instruction`
 * verb (`plan`) takes the rest as its instruction; an `alone` verb (`stop`)
 * is a verb only when nothing else follows on the line; anything else is a
 * `run` instruction. A bare `/agent`
 * takes its request from the lines below it, or asks for help when there are
 * none. The instruction is the rest of the command line plus every line
 * after it (so a longer request can follow on the next lines).
 */
export const SUB_COMMANDS: readonly Verb[] = VERB_NAMES;
export type SubCommand = Verb;

export type ParsedCommand =
  | {
      isCommand: true;
      command: SubCommand;
      /** The request text (may be empty for approve/retry and the control verbs). */
      instruction: string;
      /** 1-based line of the comment that holds the command. */
      line: number;
      /** The prefix alone, with nothing after it on its line or below. */
      bare?: true;
    }
  | { isCommand: false; reason: string };

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `/agent` alone on its line: the request is on the next lines, or it asks for help. */
function barePrefix(following: readonly string[], line: number): ParsedCommand {
  const instruction = following.join('\n').trim();
  return instruction === ''
    ? { isCommand: true, command: 'help', instruction: '', line, bare: true }
    : { isCommand: true, command: 'run', instruction, line };
}

function splitVerb(rest: string): { command: SubCommand; remainder: string } {
  const match = /^(\S+)\s*([\s\S]*)$/.exec(rest)!;
  const word = match[1]!.toLowerCase().replace(/[.!?:,]+$/, '');
  const remainder = match[2]!;
  if (isVerb(word)) {
    const { syntax } = verbRow(word);
    if (syntax === 'instruction') return { command: word, remainder };
    if (syntax === 'alone' && remainder.trim() === '') return { command: word, remainder: '' };
    if (syntax === 'amount' && (remainder.trim() === '' || AMOUNT.test(remainder.trim())))
      return { command: word, remainder: remainder.trim() };
  }
  return { command: 'run', remainder: rest };
}

/** Parses a comment body; `prefix` is `trigger.command_prefix` (e.g. `/agent`). */
export function parseAgentCommand(body: string, prefix = '/agent'): ParsedCommand {
  const wanted = prefix.trim();
  if (wanted === '') return { isCommand: false, reason: 'the command prefix is empty' };
  if (body.trim() === '') return { isCommand: false, reason: 'the comment is empty' };
  const notFound: ParsedCommand = {
    isCommand: false,
    reason: `no line starts with ${wanted} outside code, quotes and comments`,
  };
  const start = new RegExp(`^ {0,3}${escapeRegExp(wanted)}(?=\\s|$)`, 'i');
  // most comments have no line that starts with the prefix: skip the markdown parse for them
  if (!new RegExp(start.source, 'im').test(body)) return notFound;
  const { original, prose } = proseLines(body, start);
  for (let index = 0; index < prose.length; index++) {
    const match = start.exec(prose[index]!);
    if (!match) continue;
    const restOfLine = original[index]!.slice(match[0].length).trim();
    if (restOfLine === '') return barePrefix(original.slice(index + 1), index + 1);
    const { command, remainder } = splitVerb(restOfLine);
    const syntax = verbRow(command).syntax;
    const following = syntax === 'alone' || syntax === 'amount' ? [] : original.slice(index + 1);
    const instruction = [remainder, ...following].join('\n').trim();
    return { isCommand: true, command, instruction, line: index + 1 };
  }
  return notFound;
}
