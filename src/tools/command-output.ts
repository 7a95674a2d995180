/**
 * A command's output as the model reads it: the first and the
 * last part, redacted, with one line saying exactly how many bytes and lines
 * were cut between them — cut once, here, to the model's budget. The shell
 * already kept only a head and a tail of about that size; when the output is
 * still too long (masking secrets can lengthen it), more is cut from the
 * inner ends of the two parts and counted.
 */
import { joinCut, type CommandResult, type OutputCut } from '../core/shell-port.ts';
import type { Redactor } from '../log/redact.ts';

/** Room kept in the budget for the status line, the cut line and the error prefix. */
export const OUTPUT_RESERVE_CHARS = 200;

const newlines = (text: string) => text.split('\n').length - 1;

/** `text`'s first quarter and last three quarters of `size` characters, and what lies between. */
function split(text: string, size: number) {
  const headSize = Math.floor(size / 4);
  const tailSize = size - headSize;
  const middle = text.slice(headSize, text.length - tailSize);
  return {
    head: text.slice(0, headSize),
    tail: text.slice(text.length - tailSize),
    cut: { bytes: Buffer.byteLength(middle), lines: newlines(middle) },
  };
}

/** The output text for the model, at most `budget` characters. */
export function outputForModel(result: CommandResult, budget: number, redactor: Redactor): string {
  if (!result.outputParts) {
    const whole = redactor.redact(result.output);
    if (whole.length <= budget) return whole;
  }
  const parts = result.outputParts
    ? { ...result.outputParts, cut: { ...result.outputCut! } }
    : split(result.output, budget);
  let { head, tail } = parts;
  const cut: OutputCut = parts.cut;
  for (;;) {
    const text = joinCut(redactor.redact(head), cut, redactor.redact(tail));
    if (text.length <= budget || (head === '' && tail === '')) return text;
    const excess = text.length - budget;
    const fromHead = Math.min(head.length, Math.ceil(excess / 4));
    const fromTail = Math.min(tail.length, excess - fromHead);
    const dropped = head.slice(head.length - fromHead) + tail.slice(0, fromTail);
    head = head.slice(0, head.length - fromHead);
    tail = tail.slice(fromTail);
    cut.bytes += Buffer.byteLength(dropped);
    cut.lines += newlines(dropped);
  }
}
